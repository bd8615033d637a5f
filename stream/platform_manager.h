// PlatformManager: the process's platforms, registered by name.
//
// The built-in platforms register themselves lazily on first lookup: "Host",
// "SimGPU" (configured by the MINITF_SIMGPU environment variable, see
// sim_gpu_options.h) and, in builds with CUDA, "CUDA". A program or test may
// register a platform of its own under a new name.
//
//   absl::StatusOr<Platform*> sim = PlatformManager::PlatformWithName("SimGPU");
//
// Thread-safe. Registered platforms live until the process exits.
#ifndef MINITF_STREAM_PLATFORM_MANAGER_H_
#define MINITF_STREAM_PLATFORM_MANAGER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "stream/platform.h"

namespace minitf::se {

class PlatformManager {
 public:
  // AlreadyExists when a platform of that name is registered.
  static absl::Status RegisterPlatform(std::unique_ptr<Platform> platform);
  // NotFound, listing the registered names, for an unknown name. Names are
  // matched case-insensitively ("simgpu" finds "SimGPU").
  static absl::StatusOr<Platform*> PlatformWithName(absl::string_view name);
  // Names of the registered platforms (built-ins included), sorted.
  static std::vector<std::string> PlatformNames();
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_PLATFORM_MANAGER_H_
