#include "stream/sim_gpu/sim_gpu_stream.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "stream/sim_gpu/sim_gpu_cost_model.h"
#include "stream/sim_gpu/sim_gpu_engine.h"

namespace minitf::se {

SimGPUStream::SimGPUStream(StreamExecutor* parent, StreamSet* streams, SimGPUEngine* engine,
                           const SimGPUOptions& options, StreamPriority priority)
    : SimGPUStream(parent, streams, engine, options, priority, nullptr) {}

SimGPUStream::SimGPUStream(StreamExecutor* parent, StreamSet* streams, SimGPUEngine* engine,
                           const SimGPUOptions& options, StreamPriority priority,
                           std::shared_ptr<SmPartition> partition)
    : HostStream(parent, streams),
      engine_(engine),
      options_(options),
      priority_(priority),
      partition_(std::move(partition)) {}

absl::Status SimGPUStream::LaunchHostKernel(HostKernel kernel) {
  if (!kernel.body && options_.mode != SimGPUOptions::Mode::kTiming) {
    return absl::InvalidArgumentError(
        absl::StrCat(name(), ": kernel ", kernel.name, " has no body"));
  }
  const absl::Duration modeled = ModeledKernelTime(options_, kernel.cost);
  std::string kernel_name = kernel.name;
  // The closure captures the engine and the kernel, not this stream: the
  // worker may still run it while ~HostStream drains the queue.
  return EnqueueKernel(std::move(kernel_name),
                       [engine = engine_, kernel = std::move(kernel), modeled,
                        priority = priority_,
                        partition = partition_](KernelClock* clock, absl::Duration* busy) {
                         return engine->Execute(kernel, modeled, priority, clock->ready, busy,
                                                &clock->done, partition.get());
                       });
}

bool SimGPUStream::MovesBytes(uint64_t bytes) const {
  return options_.mode != SimGPUOptions::Mode::kTiming || bytes <= kLargestMovedInTiming;
}

absl::Duration SimGPUStream::ModeledTransferTime(TransferKind kind, uint64_t bytes) const {
  if (options_.mode == SimGPUOptions::Mode::kFunctional) return absl::ZeroDuration();
  const bool crosses_pcie =
      kind == TransferKind::kHostToDevice || kind == TransferKind::kDeviceToHost;
  return se::ModeledTransferTime(options_, bytes, crosses_pcie);
}

}  // namespace minitf::se
