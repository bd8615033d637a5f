// KernelBusyTimer: the GPU time a CUDA stream spent in kernels, measured
// with CUDA events. Each timed interval opens with an event recorded before
// its kernels and closes with one recorded after them; once the closing
// event has completed, cudaEventElapsedTime between the two is added to the
// busy time. A CudaStream owns one and opens intervals through
// ScopedKernelTiming (scoped_kernel_timing.h).
//
//   timer.Begin(stream);   // kernel launches, cuBLAS or cuDNN calls
//   MyKernel<<<blocks, threads, 0, stream>>>(...);
//   timer.End(stream);
//   absl::Duration busy = timer.BusyTime();   // completed intervals only
//
// What an interval measures: from when the stream reaches its start event to
// when its last kernel has finished. Begin/End pairs that overlap (two op
// kernels enqueueing on the same stream from two threads) form one interval,
// so intervals never overlap and the busy time of a stream never exceeds the
// wall time. An interval also counts the device's wait for the host between
// its launches (a kernel that launches, computes on the host, launches
// again), and the launch latency of its first kernel when the stream was idle.
//
// Events come from a small pool and are reused. At most kMaxPendingIntervals
// intervals await completion: when the host runs that far ahead of the device,
// a new interval extends the last pending one (its stop event is recorded
// again) instead of taking more events; the device is then busy through the
// gap anyway, since work was queued.
//
// Nothing blocks: BusyTime() and Poll() only query events. CUDA errors in
// timing are not the stream's errors; an interval whose events fail is
// dropped. Thread-safe.
#ifndef MINITF_STREAM_CUDA_KERNEL_BUSY_TIMER_H_
#define MINITF_STREAM_CUDA_KERNEL_BUSY_TIMER_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <deque>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"
#include "platform/mutex.h"

namespace minitf::se::cuda {

class KernelBusyTimer {
 public:
  static constexpr size_t kMaxPendingIntervals = 32;

  KernelBusyTimer() = default;
  // REQUIRES: the stream the events were recorded on has drained.
  ~KernelBusyTimer();
  KernelBusyTimer(const KernelBusyTimer&) = delete;
  KernelBusyTimer& operator=(const KernelBusyTimer&) = delete;

  // Opens an interval on `stream` unless one is open; every Begin is
  // matched by one End on the same stream. REQUIRES: the stream's device is
  // current on this thread.
  void Begin(cudaStream_t stream);
  void End(cudaStream_t stream);

  // Adds the intervals that have completed, in stream order, and returns the
  // total so far.
  absl::Duration BusyTime();
  void Poll();

  // Events this timer created (a bound on the pool's size, for tests).
  size_t EventsCreated();

 private:
  struct Interval {
    cudaEvent_t start;
    cudaEvent_t stop;
  };

  void PollLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A pooled or new timing event; nullptr when CUDA cannot create one.
  cudaEvent_t TakeEventLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReturnEventLocked(cudaEvent_t event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Mutex mu_;
  // Begin calls not yet matched by End.
  int open_ ABSL_GUARDED_BY(mu_) = 0;
  // The open interval's recorded start event; nullptr when none was
  // recorded (timing failed, or the interval extends the last pending one).
  cudaEvent_t open_start_ ABSL_GUARDED_BY(mu_) = nullptr;
  // The open interval extends pending_.back(), which Poll then leaves alone.
  bool extending_ ABSL_GUARDED_BY(mu_) = false;
  // Closed intervals in stream order, oldest first, awaiting completion.
  std::deque<Interval> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<cudaEvent_t> free_events_ ABSL_GUARDED_BY(mu_);
  size_t events_created_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Duration busy_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_KERNEL_BUSY_TIMER_H_
