// CudaStream: a Stream over a non-blocking cudaStream_t of one device.
// Copies, memsets and waits are enqueued with the CUDA runtime's async calls;
// host callbacks and host kernels run on the stream's HostCallbackWorker
// thread, in stream order: a CUDA host function hands each to the worker and
// holds the stream until it has run, so work enqueued after a callback waits
// for it (as on the Host and SimGPU platforms) and the callback may itself
// call CUDA.
//
//   std::unique_ptr<Stream> s = *executor->CreateStream();   // or WithPriority
//   MINITF_RETURN_IF_ERROR(s->Memcpy(&gpu_buf, host_src, bytes));
//   cudaStream_t raw = static_cast<cudaStream_t>(s->platform_specific_handle());
//   MyKernel<<<blocks, threads, 0, raw>>>(...);
//
// Errors follow stream.h, with what CUDA allows: an operation that fails when
// enqueued, a failed host callback or host kernel, or a failure found by
// BlockHostUntilDone puts the stream into its error state. Device work that
// was already enqueued when a callback failed still runs (CUDA cannot take it
// back). Once in error, callbacks run directly on the worker thread.
//
// Busy time: the op kernels open a ScopedKernelTiming around their launches
// (scoped_kernel_timing.h); BusyTime() adds up those intervals once the
// device has finished them, measured with CUDA events (kernel_busy_timer.h).
//
// Callbacks must not wait for this stream, and should not make calls that wait
// for the whole device (cudaFree, SynchronizeAllActivity): the stream is held
// while they run. Thread-safe; the destructor waits for enqueued work.
#ifndef MINITF_STREAM_CUDA_CUDA_STREAM_H_
#define MINITF_STREAM_CUDA_CUDA_STREAM_H_

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "platform/mutex.h"
#include "stream/cuda/host_callback_worker.h"
#include "stream/cuda/kernel_busy_timer.h"
#include "stream/stream.h"
#include "stream/stream_priority.h"

namespace minitf::se::cuda {

class CudaExecutor;

class CudaStream : public Stream {
 public:
  // `executor` is not owned and outlives the stream. `priority` maps onto
  // the device's range (cudaDeviceGetStreamPriorityRange): kHighest to its
  // greatest priority, kDefault and kLowest to its least, CUDA's default.
  static absl::StatusOr<std::unique_ptr<CudaStream>> Create(CudaExecutor* executor,
                                                            StreamPriority priority);
  ~CudaStream() override;

  // The CudaStream behind `stream`, or nullptr when it is another platform's.
  static CudaStream* FromStream(Stream* stream);

  absl::Status Memcpy(DeviceMemoryBase* gpu_dst, const void* host_src, uint64_t size) override;
  absl::Status Memcpy(void* host_dst, const DeviceMemoryBase& gpu_src, uint64_t size) override;
  absl::Status Memcpy(DeviceMemoryBase* gpu_dst, const DeviceMemoryBase& gpu_src,
                      uint64_t size) override;
  absl::Status Memset32(DeviceMemoryBase* location, uint32_t pattern, uint64_t size) override;
  // Runs `kernel.body` on the worker thread in stream order (it computes on
  // host memory; device memory needs a CUDA kernel).
  absl::Status LaunchHostKernel(HostKernel kernel) override;

  absl::Status WaitFor(Stream* other) override;
  absl::Status WaitFor(Event* event) override;
  absl::Status RecordEvent(Event* event) override;

  absl::Status DoHostCallback(std::function<void()> callback) override;
  absl::Status DoHostCallbackWithStatus(std::function<absl::Status()> callback) override;

  // Also adds the busy time of the intervals it waited for.
  absl::Status BlockHostUntilDone() override;
  absl::Status status() const override;
  // GPU time of the kernels timed so far whose work has completed; never
  // waits for the device.
  absl::Duration BusyTime() const override;
  void* platform_specific_handle() const override { return handle_; }

  cudaStream_t handle() const { return handle_; }
  CudaExecutor* executor() const { return executor_; }

  // Puts the stream into its error state with `error` unless it is in one
  // already; returns the stream's status. For the plugins and kernels that
  // enqueue on handle() directly.
  absl::Status SetError(absl::Status error);

  // Open and close a timed interval of kernel work; use ScopedKernelTiming.
  void BeginKernel() { busy_timer_->Begin(handle_); }
  void EndKernel() { busy_timer_->End(handle_); }

 private:
  CudaStream(CudaExecutor* executor, cudaStream_t handle);

  // Ok, or the stream's error (also after making the device current).
  absl::Status CheckReady() const;
  // Records a failed enqueue as the stream's error.
  absl::Status RecordEnqueue(cudaError_t error, const char* call);
  // Enqueues `callback` to run on the worker in stream order; its error
  // becomes the stream's.
  absl::Status EnqueueOnWorker(std::function<absl::Status()> callback);

  CudaExecutor* const executor_;  // Not owned.
  const cudaStream_t handle_;
  // Destroyed explicitly in the destructor, after the stream has drained.
  std::unique_ptr<HostCallbackWorker> worker_;
  // Destroyed after the stream has drained (the destructor synchronizes).
  const std::unique_ptr<KernelBusyTimer> busy_timer_;

  mutable Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUDA_STREAM_H_
