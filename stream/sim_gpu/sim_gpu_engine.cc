#include "stream/sim_gpu/sim_gpu_engine.h"

#include <algorithm>

namespace minitf::se {
namespace {

// Whether the kernel whose body returned OK did its arithmetic (see
// HostKernel::did_work).
bool DidWork(const HostKernel& kernel) { return !kernel.did_work || kernel.did_work(); }

}  // namespace

absl::Status SimGPUEngine::Execute(const HostKernel& kernel, absl::Duration modeled,
                                   StreamPriority priority, absl::Duration* charged) {
  MutexLock lock(&mu_);
  const WaitKey key{-static_cast<int>(priority), next_ticket_++};
  Acquire(key);
  absl::Status status;
  const absl::Time start = absl::Now();
  switch (mode_) {
    case SimGPUOptions::Mode::kCompute:
      status = RunBody(kernel);
      if (status.ok() && DidWork(kernel)) {
        const absl::Duration body = absl::Now() - start;
        *charged = std::max(modeled, body);
        Hold(key, modeled - body);
      } else {
        *charged = absl::Now() - start;
      }
      break;
    case SimGPUOptions::Mode::kTiming:
      *charged = modeled;
      if (kernel.run_in_timing_mode) {
        status = RunBody(kernel);
        const absl::Duration body = absl::Now() - start;
        if (status.ok() && DidWork(kernel)) {
          *charged = std::max(modeled, body);
          Hold(key, modeled - body);
        } else {
          *charged = body;
        }
      } else {
        Hold(key, modeled);
      }
      break;
    case SimGPUOptions::Mode::kFunctional:
      status = RunBody(kernel);
      *charged = absl::Now() - start;
      break;
  }
  busy_ += *charged;
  ++kernel_count_;
  Release();
  return status;
}

absl::Status SimGPUEngine::RunBody(const HostKernel& kernel) {
  ++body_count_;
  if (!kernel.body) return absl::OkStatus();
  // Without the lock: other kernels queue meanwhile.
  mu_.Unlock();
  absl::Status status = kernel.body();
  mu_.Lock();
  return status;
}

void SimGPUEngine::Acquire(WaitKey key) {
  waiting_.insert(key);
  if (taken_ && key.first < running_.first) preempt_cv_.Signal();
  while (taken_ || *waiting_.begin() != key) turn_cv_.Wait(&mu_);
  waiting_.erase(key);
  taken_ = true;
  running_ = key;
}

void SimGPUEngine::Release() {
  taken_ = false;
  turn_cv_.SignalAll();
}

bool SimGPUEngine::OutrankedBy(WaitKey key) const {
  return !waiting_.empty() && waiting_.begin()->first < key.first;
}

void SimGPUEngine::Hold(WaitKey key, absl::Duration hold) {
  absl::Duration left = hold;
  while (left > absl::ZeroDuration()) {
    const absl::Time begin = absl::Now();
    const absl::Time end = begin + left;
    // Until the end, or until a kernel of a higher priority arrives.
    absl::Time now = begin;
    while (now < end && !OutrankedBy(key)) {
      preempt_cv_.WaitWithTimeout(&mu_, end - now);
      now = absl::Now();
    }
    if (now >= end) return;
    // Outranked: the blocks in flight drain, then the engine is handed over.
    const absl::Time drained = std::min(end, now + preempt_);
    while (now < drained) {
      preempt_cv_.WaitWithTimeout(&mu_, drained - now);
      now = absl::Now();
    }
    left = end - now;
    if (left <= absl::ZeroDuration()) return;
    ++preemptions_;
    Release();
    Acquire(key);
  }
}

absl::Duration SimGPUEngine::BusyTime() const {
  MutexLock lock(&mu_);
  return busy_;
}

int64_t SimGPUEngine::KernelCount() const {
  MutexLock lock(&mu_);
  return kernel_count_;
}

int64_t SimGPUEngine::BodyCount() const {
  MutexLock lock(&mu_);
  return body_count_;
}

int64_t SimGPUEngine::PreemptionCount() const {
  MutexLock lock(&mu_);
  return preemptions_;
}

int SimGPUEngine::QueuedKernels() const {
  MutexLock lock(&mu_);
  return static_cast<int>(waiting_.size());
}

}  // namespace minitf::se
