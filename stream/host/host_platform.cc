#include "stream/host/host_platform.h"

#include "absl/strings/str_cat.h"

namespace minitf::se {

HostPlatform::HostPlatform() : executor_(std::make_unique<HostExecutor>(this)) {}

PlatformId HostPlatform::Id() {
  static const char kId = 0;
  return &kId;
}

absl::StatusOr<StreamExecutor*> HostPlatform::ExecutorForDevice(int ordinal) {
  if (ordinal != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Host platform has one device (ordinal 0); asked for ordinal ", ordinal));
  }
  return executor_.get();
}

}  // namespace minitf::se
