// libFuzzer target for ParseGPUConfig: any bytes are either rejected with
// InvalidArgument or give a config that keeps GPUConfig's invariants and
// survives a round trip through GPUConfigToJson. A violation traps.
//
//   gpu_config_fuzzer -runs=20000 -seed=1 <scratch dir> tests/fuzz/corpus/gpu_config
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "session/antman/gpu_config.h"

namespace {

void Require(bool invariant) {
  if (!invariant) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view content(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  const absl::StatusOr<minitf::GPUConfig> config =
      minitf::ParseGPUConfig(content, "fuzz.json", &warnings);
  if (!config.ok()) {
    Require(config.status().code() == absl::StatusCode::kInvalidArgument);
    Require(warnings.empty());
    return 0;
  }

  if (config->perf_control.has_value()) {
    Require(*config->perf_control >= 0 && *config->perf_control <= 100);
  }
  for (const auto& [device, bytes] : config->max_device_mem) {
    Require(bytes > 0);
    const absl::StatusOr<std::string> normal = minitf::NormalizeGPUConfigDeviceKey(device);
    Require(normal.ok() && *normal == device);
  }
  const absl::StatusOr<minitf::GPUConfig> again =
      minitf::ParseGPUConfig(minitf::GPUConfigToJson(*config), "round-trip.json");
  Require(again.ok() && *again == *config);
  return 0;
}
