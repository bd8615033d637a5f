// Platform: one kind of device a StreamExecutor drives ("Host", "SimGPU",
// "CUDA"). A platform knows how many devices it can see and hands out one
// StreamExecutor per device ordinal, which it owns and keeps for its own
// lifetime (so every user of device 0 in the process shares one executor,
// one memory capacity and, on SimGPU, one compute engine).
//
//   absl::StatusOr<Platform*> p = PlatformManager::PlatformWithName("SimGPU");
//   absl::StatusOr<StreamExecutor*> gpu0 = (*p)->ExecutorForDevice(0);
//
// Thread-safe.
#ifndef MINITF_STREAM_PLATFORM_H_
#define MINITF_STREAM_PLATFORM_H_

#include <string>

#include "absl/status/statusor.h"

namespace minitf::se {

class StreamExecutor;

// Identifies a platform type: the address of a per-platform static.
using PlatformId = const void*;

class Platform {
 public:
  virtual ~Platform() = default;

  virtual PlatformId id() const = 0;
  // "Host", "SimGPU", "CUDA".
  virtual const std::string& Name() const = 0;
  // Devices this platform can drive now (0 for CUDA without a GPU).
  virtual int VisibleDeviceCount() const = 0;
  // The executor of device `ordinal`, created on first use; owned by the
  // platform. InvalidArgument for an ordinal outside [0, VisibleDeviceCount).
  virtual absl::StatusOr<StreamExecutor*> ExecutorForDevice(int ordinal) = 0;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_PLATFORM_H_
