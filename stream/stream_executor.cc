#include "stream/stream_executor.h"

#include "stream/stream.h"

namespace minitf::se {

absl::StatusOr<std::unique_ptr<Stream>> StreamExecutor::CreateStreamWithPriority(
    StreamPriority /*priority*/) {
  return CreateStream();
}

}  // namespace minitf::se
