#include "stream/stream_executor.h"

#include "absl/strings/str_cat.h"
#include "stream/stream.h"

namespace minitf::se {

absl::StatusOr<std::unique_ptr<Stream>> StreamExecutor::CreateStreamWithPriority(
    StreamPriority /*priority*/) {
  return CreateStream();
}

absl::StatusOr<std::unique_ptr<Stream>> StreamExecutor::CreateStreamInPartition(
    StreamPriority /*priority*/, std::shared_ptr<SmPartition> /*partition*/) {
  return absl::UnimplementedError(absl::StrCat(
      "GPU:", device_ordinal(),
      ": this platform cannot run a stream on a share of the SMs (a green context; "
      "GPUOptions.sm_fraction, pacing policy 'sms'): only SimGPU's timing mode models it"));
}

}  // namespace minitf::se
