#include "device/gpu/gpu_options.h"

#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "platform/env.h"

namespace minitf {
namespace {

absl::Status BadEnv(const char* name, const std::string& value, const char* expected) {
  return absl::InvalidArgumentError(absl::StrCat("environment variable ", name, "='", value,
                                                 "' is invalid: expected ", expected));
}

absl::Status ReadBool(const char* name, bool* out) {
  std::optional<std::string> value = GetEnv(name);
  if (!value.has_value()) return absl::OkStatus();
  const std::string v = absl::AsciiStrToLower(*value);
  if (v == "true" || v == "1") {
    *out = true;
  } else if (v == "false" || v == "0") {
    *out = false;
  } else {
    return BadEnv(name, *value, "true, false, 1 or 0");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GPUOptions> ApplyGPUEnvironment(GPUOptions options) {
  if (absl::Status s = ReadBool("TF_FORCE_GPU_ALLOW_GROWTH", &options.allow_growth); !s.ok()) {
    return s;
  }
  if (absl::Status s = ReadBool("TF_GPU_VMEM", &options.vmem); !s.ok()) return s;
  if (std::optional<std::string> value = GetEnv("TF_CUDA_HOST_MEM_LIMIT_IN_MB");
      value.has_value()) {
    int64_t mb = 0;
    if (!absl::SimpleAtoi(*value, &mb) || mb <= 0) {
      return BadEnv("TF_CUDA_HOST_MEM_LIMIT_IN_MB", *value, "a positive number of MiB");
    }
    options.host_memory_limit_mb = mb;
  }
  if (options.platform.empty()) options.platform = GetEnvOr("MINITF_GPU_PLATFORM", "");
  if (!options.platform.empty() && absl::AsciiStrToLower(options.platform) != "simgpu" &&
      options.platform != "CUDA") {
    return absl::InvalidArgumentError(
        absl::StrCat("GPU platform '", options.platform,
                     "' (MINITF_GPU_PLATFORM or GPUOptions::platform) is invalid: expected "
                     "SimGPU or CUDA"));
  }
  if (options.thread_mode.empty()) {
    options.thread_mode = GetEnvOr("TF_GPU_THREAD_MODE", "global");
  }
  if (options.thread_mode != "global" && options.thread_mode != "gpu_private" &&
      options.thread_mode != "gpu_shared") {
    return absl::InvalidArgumentError(
        absl::StrCat("GPU thread mode '", options.thread_mode,
                     "' (TF_GPU_THREAD_MODE or GPUOptions::thread_mode) is invalid: expected "
                     "global, gpu_private or gpu_shared"));
  }
  if (!(options.sm_fraction >= 0 && options.sm_fraction <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("gpu_options.sm_fraction must be in [0, 1], got ", options.sm_fraction));
  }
  if (options.per_process_gpu_memory_fraction < 0 ||
      options.per_process_gpu_memory_fraction > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("per_process_gpu_memory_fraction must be in [0, 1], got ",
                     options.per_process_gpu_memory_fraction));
  }
  if (options.memory_limit_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GPU memory_limit_bytes must not be negative, got ", options.memory_limit_bytes));
  }
  return options;
}

}  // namespace minitf
