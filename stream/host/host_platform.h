// HostPlatform: the "Host" platform, the CPU as a StreamExecutor device (one
// device, ordinal 0). PlatformManager registers the process's instance; tests
// may make their own.
//
//   absl::StatusOr<Platform*> host = PlatformManager::PlatformWithName("Host");
//   StreamExecutor* cpu = *(*host)->ExecutorForDevice(0);
//
// Thread-safe.
#ifndef MINITF_STREAM_HOST_HOST_PLATFORM_H_
#define MINITF_STREAM_HOST_HOST_PLATFORM_H_

#include <memory>
#include <string>

#include "stream/host/host_executor.h"
#include "stream/platform.h"

namespace minitf::se {

class HostPlatform : public Platform {
 public:
  HostPlatform();

  // The id of every HostPlatform.
  static PlatformId Id();

  PlatformId id() const override { return Id(); }
  const std::string& Name() const override { return name_; }
  int VisibleDeviceCount() const override { return 1; }
  absl::StatusOr<StreamExecutor*> ExecutorForDevice(int ordinal) override;

 private:
  const std::string name_ = "Host";
  const std::unique_ptr<HostExecutor> executor_;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_HOST_HOST_PLATFORM_H_
