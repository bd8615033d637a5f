// StreamPriority: which of a device's streams the device serves first when
// several have kernels ready (CUDA stream priorities; TensorFlow exposes
// them as GPUOptions.Experimental.VirtualDevices.priority).
//
//   std::unique_ptr<Stream> s =
//       *executor->CreateStreamWithPriority(StreamPriority::kHighest);
//
// A device that is free starts the ready kernel of the highest-priority
// stream; a running kernel of a lower-priority stream hands the device over
// once its thread blocks in flight have drained (SimGPU models that time;
// see SimGPUOptions::preempt_us). Kernels of one priority are served in
// arrival order, and nothing stops a busy high-priority stream from
// starving a low-priority one: that is the point when a guaranteed job
// shares a GPU with an opportunistic one.
//
// CUDA has fewer levels than names here: its default priority is its
// lowest, so kLowest and kDefault are the same there.
#ifndef MINITF_STREAM_STREAM_PRIORITY_H_
#define MINITF_STREAM_STREAM_PRIORITY_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace minitf::se {

// In increasing order of priority.
enum class StreamPriority { kLowest, kDefault, kHighest };

// "low", "default", "high"; InvalidArgument naming the accepted values
// otherwise.
absl::StatusOr<StreamPriority> ParseStreamPriority(absl::string_view name);
const char* StreamPriorityName(StreamPriority priority);

}  // namespace minitf::se

#endif  // MINITF_STREAM_STREAM_PRIORITY_H_
