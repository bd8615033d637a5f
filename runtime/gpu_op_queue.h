// GpuOpQueue: what the executor needs of a GPU device's launch queue for
// AntMan compute pacing, and nothing more.
//
//   if (GpuOpQueue* q = device->gpu_op_queue(); q != nullptr && q->active()) {
//     q->Enqueue(std::move(launch));    // runs after the launch's idle slot
//   } else {
//     launch();
//   }
//
// Synchronous kernels go the same way where paces_sync_kernels() (a GPU
// device), their thread waiting until the queue has run them.
//
// The implementation is GpuOpManager (gpu_op_manager.h), which the AntMan
// control plane drives through the GPU device; the executor sees only this.
#ifndef MINITF_RUNTIME_GPU_OP_QUEUE_H_
#define MINITF_RUNTIME_GPU_OP_QUEUE_H_

#include <functional>

namespace minitf {

// Thread-safe.
class GpuOpQueue {
 public:
  virtual ~GpuOpQueue() = default;

  // Whether the device's async launches must go through Enqueue: true while
  // the job runs below its full GPU share. Cheap: asked for every launch.
  virtual bool active() const = 0;

  // Whether the device's synchronous expensive kernels are launches too, to
  // be paced like the async ones: a CUDA kernel's Compute enqueues its work
  // on the stream and returns. The executor then runs such a Compute through
  // Enqueue and waits for it.
  virtual bool paces_sync_kernels() const { return false; }

  // Runs `launch` after its idle slot, launches in FIFO order, without
  // holding any lock. `launch` must be cheap (it only enqueues work on a
  // stream). A launch handed here is never dropped.
  virtual void Enqueue(std::function<void()> launch) = 0;
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_GPU_OP_QUEUE_H_
