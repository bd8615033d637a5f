// GPUConfig: the GPU resource settings an external scheduler hands a training
// job through a JSON file (AntMan's format), and the parser that checks it.
//
//   absl::StatusOr<GPUConfig> config = ParseGPUConfig(text, "/run/job/gpu.json");
//   if (!config.ok()) {
//     LOG(WARNING, "{}", config.status());  // Keep the last good settings.
//     return;
//   }
//   for (const auto& [device, bytes] : config->max_device_mem) ...  // "GPU:0" -> 8 GiB
//   if (config->perf_control) ...                                   // 0..100
//
// The file's format:
//
//   {"gpuConfigInfo": {"0000:50:00.0": {"maxDeviceMem": 8589934592},
//                      "GPU:1":        {"maxDeviceMem": 4294967296}},
//    "perfControl": 50}
//
//   gpuConfigInfo  optional object: device key -> that device's settings (an
//                  object). A device key is a PCI bus id or a GPU name; see
//                  NormalizeGPUConfigDeviceKey.
//     maxDeviceMem optional per device: the most device memory the job may
//                  hold, in bytes; an integer in 1..INT64_MAX.
//   perfControl    optional integer in 0..100: 100 = unrestricted, 1..99 = the
//                  share of the GPU's time the job aims for, 0 = suspend.
//
// Validation is all or nothing: a file with any invalid part is rejected as a
// whole (InvalidArgument naming the file and the field path, such as
// gpuConfigInfo."GPU:0".maxDeviceMem), so a caller keeps its last good
// settings. In detail:
//   - The text must be one JSON object and nothing else (no comments, no
//     trailing data, no NUL byte). Empty or whitespace-only text is an error (a scheduler
//     caught mid-write); "{}" is the valid "change nothing". A leading UTF-8
//     byte order mark is accepted and skipped.
//   - A key given twice in one JSON object, at any depth, is an error: JSON
//     parsers disagree on which copy wins (nlohmann's keeps the last).
//   - Numbers must be written as integers: 1e9 and 50.0 are rejected, as are
//     strings, booleans and null in place of a number.
//   - Two device keys that normalise to the same key ("GPU:0" and
//     "/device:GPU:0") are an error. A bus id and a GPU name of the same
//     device cannot be told apart here; whoever applies the config maps bus
//     ids to devices and has to settle that case.
//   - Unknown top-level keys and unknown per-device keys (a scheduler's
//     "version", a setting from a newer format) are ignored with a warning,
//     whatever their value. A device entry with no maxDeviceMem is valid and
//     changes nothing for that device.
//
// Thread safety: the functions are pure; any thread may call them.
#ifndef MINITF_SESSION_ANTMAN_GPU_CONFIG_H_
#define MINITF_SESSION_ANTMAN_GPU_CONFIG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace minitf {

// A valid config: every key of max_device_mem is normalised
// (NormalizeGPUConfigDeviceKey(key) == key), every limit is > 0, and
// perf_control, when present, is in 0..100.
struct GPUConfig {
  std::map<std::string, int64_t> max_device_mem;  // Normalised device key -> bytes.
  std::optional<int> perf_control;                // 0..100 when present.

  bool operator==(const GPUConfig&) const = default;
};

// Parses `content`, the text of a config file; `file_name` only names the file
// in messages. On success appends to `warnings` (may be null) one line per
// ignored unknown key, in key order; on error leaves it as it was and returns
// InvalidArgument("GPU config '<file_name>': <field path> ..."), or for a
// syntax error "... not valid JSON: <the parser's message> (byte offset N)".
absl::StatusOr<GPUConfig> ParseGPUConfig(absl::string_view content, absl::string_view file_name,
                                         std::vector<std::string>* warnings = nullptr);

// The normal form of a gpuConfigInfo key:
//   - a PCI bus id "dddd:bb:dd.f" (hex digits: 4 of domain, 2 of bus, device
//     00..1f, function 0..7), as cudaDeviceGetPCIBusId and SimGPU write it,
//     is kept as written but lower-cased: "0000:5A:00.0" -> "0000:5a:00.0";
//   - AntMan's form of a bus id, without the domain ("bb:dd.f", as the
//     statistics file's gpuUsageInfo keys are), gets domain 0000:
//     "50:00.0" -> "0000:50:00.0";
//   - a GPU name "GPU:<n>", "/device:GPU:<n>" or
//     "/job:localhost/replica:0/task:0/device:GPU:<n>", with <n> a decimal
//     ordinal without leading zeros, becomes "GPU:<n>".
// Anything else (another device type, another task, "GPU:x", "") is
// InvalidArgument.
absl::StatusOr<std::string> NormalizeGPUConfigDeviceKey(absl::string_view key);

// The JSON text of `config`, as a scheduler would write it: gpuConfigInfo
// always, perfControl when set. REQUIRES: `config` is valid (see GPUConfig);
// then ParseGPUConfig(GPUConfigToJson(config), ...) == config.
std::string GPUConfigToJson(const GPUConfig& config);

}  // namespace minitf

#endif  // MINITF_SESSION_ANTMAN_GPU_CONFIG_H_
