#include "stream/cuda/kernel_busy_timer.h"

namespace minitf::se::cuda {

KernelBusyTimer::~KernelBusyTimer() {
  MutexLock lock(&mu_);
  if (open_start_ != nullptr) cudaEventDestroy(open_start_);
  for (const Interval& interval : pending_) {
    cudaEventDestroy(interval.start);
    cudaEventDestroy(interval.stop);
  }
  for (cudaEvent_t event : free_events_) cudaEventDestroy(event);
}

cudaEvent_t KernelBusyTimer::TakeEventLocked() {
  if (!free_events_.empty()) {
    cudaEvent_t event = free_events_.back();
    free_events_.pop_back();
    return event;
  }
  cudaEvent_t event = nullptr;
  if (cudaEventCreateWithFlags(&event, cudaEventDefault) != cudaSuccess) {
    cudaGetLastError();  // Not the launches' error: timing is best effort.
    return nullptr;
  }
  ++events_created_;
  return event;
}

void KernelBusyTimer::ReturnEventLocked(cudaEvent_t event) {
  // A pooled event may still be pending; its next record replaces that one.
  if (event != nullptr) free_events_.push_back(event);
}

void KernelBusyTimer::Begin(cudaStream_t stream) {
  MutexLock lock(&mu_);
  if (open_++ > 0) return;
  PollLocked();
  if (pending_.size() >= kMaxPendingIntervals) {
    extending_ = true;
    return;
  }
  cudaEvent_t start = TakeEventLocked();
  if (start == nullptr) return;
  if (cudaEventRecord(start, stream) != cudaSuccess) {
    cudaGetLastError();
    ReturnEventLocked(start);
    return;
  }
  open_start_ = start;
}

void KernelBusyTimer::End(cudaStream_t stream) {
  MutexLock lock(&mu_);
  if (--open_ > 0) return;
  if (extending_) {
    extending_ = false;
    // On failure the interval keeps its earlier stop: a shorter measure.
    if (cudaEventRecord(pending_.back().stop, stream) != cudaSuccess) cudaGetLastError();
    return;
  }
  cudaEvent_t start = open_start_;
  open_start_ = nullptr;
  if (start == nullptr) return;
  cudaEvent_t stop = TakeEventLocked();
  if (stop == nullptr || cudaEventRecord(stop, stream) != cudaSuccess) {
    cudaGetLastError();
    ReturnEventLocked(start);
    ReturnEventLocked(stop);
    return;
  }
  pending_.push_back({start, stop});
}

void KernelBusyTimer::PollLocked() {
  // An interval being extended is not complete whatever its stop says now.
  while (pending_.size() > (extending_ ? 1u : 0u)) {
    const Interval interval = pending_.front();
    const cudaError_t done = cudaEventQuery(interval.stop);
    if (done == cudaErrorNotReady) {
      // Not an error, but the runtime may still leave it as this thread's
      // last error, where the next launch's cudaGetLastError would find it.
      cudaGetLastError();
      return;
    }
    pending_.pop_front();
    float milliseconds = 0;
    if (done == cudaSuccess &&
        cudaEventElapsedTime(&milliseconds, interval.start, interval.stop) == cudaSuccess) {
      busy_ += absl::Milliseconds(static_cast<double>(milliseconds));
    } else {
      cudaGetLastError();  // The interval is dropped.
    }
    ReturnEventLocked(interval.start);
    ReturnEventLocked(interval.stop);
  }
}

void KernelBusyTimer::Poll() {
  MutexLock lock(&mu_);
  PollLocked();
}

absl::Duration KernelBusyTimer::BusyTime() {
  MutexLock lock(&mu_);
  PollLocked();
  return busy_;
}

size_t KernelBusyTimer::EventsCreated() {
  MutexLock lock(&mu_);
  return events_created_;
}

}  // namespace minitf::se::cuda
