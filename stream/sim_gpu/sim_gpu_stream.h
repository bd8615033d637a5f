// SimGPUStream: a stream of a SimGPU device. A HostStream (one FIFO worker
// thread) whose kernels go through the device's SimGPUEngine, and whose
// copies and memsets take their modeled time (sim_gpu_cost_model.h) on the
// stream in compute and timing modes. Copies do not take the compute engine
// (real GPUs have copy engines), and they copy the bytes in every mode but
// timing, where large copies only take their time (MovesBytes).
//
//   std::unique_ptr<Stream> s =
//       *sim_gpu_executor->CreateStreamWithPriority(StreamPriority::kHighest);
//   s->LaunchHostKernel(std::move(kernel));   // waits for the engine, at the
//                                             // stream's priority
//   s->BusyTime();                             // engine time of this stream
//
// Thread-safe. Made by SimGPUExecutor::CreateStream(WithPriority).
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_STREAM_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_STREAM_H_

#include <memory>

#include "stream/host/host_stream.h"
#include "stream/sim_gpu/sim_gpu_options.h"
#include "stream/stream_priority.h"

namespace minitf::se {

class SimGPUEngine;
class SmPartition;

class SimGPUStream : public HostStream {
 public:
  // `engine` is the device's (not owned; outlives the stream).
  SimGPUStream(StreamExecutor* parent, StreamSet* streams, SimGPUEngine* engine,
               const SimGPUOptions& options, StreamPriority priority);
  // A stream whose kernels run on `partition`'s SMs (timing mode).
  SimGPUStream(StreamExecutor* parent, StreamSet* streams, SimGPUEngine* engine,
               const SimGPUOptions& options, StreamPriority priority,
               std::shared_ptr<SmPartition> partition);

  StreamPriority priority() const { return priority_; }
  // The SMs its kernels may use; null: every SM.
  const SmPartition* partition() const { return partition_.get(); }

  // Enqueues the kernel; on the worker it waits for its turn on the engine,
  // which runs it and charges its busy time to this stream and the device.
  absl::Status LaunchHostKernel(HostKernel kernel) override;

 protected:
  absl::Duration ModeledTransferTime(TransferKind kind, uint64_t bytes) const override;
  // In timing mode, a copy of more than kLargestMovedInTiming bytes takes its
  // time and moves nothing: it is data no kernel computes with there (the
  // tensors timing mode still computes, shapes and indices, are small).
  bool MovesBytes(uint64_t bytes) const override;

  static constexpr uint64_t kLargestMovedInTiming = 64 << 10;

 private:
  SimGPUEngine* const engine_;
  const SimGPUOptions options_;
  const StreamPriority priority_;
  const std::shared_ptr<SmPartition> partition_;  // Null: every SM.
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_STREAM_H_
