#include "stream/sim_gpu/sim_gpu_engine.h"

#include <algorithm>

#include "stream/host/sleep_until.h"

namespace minitf::se {

absl::Status SimGpuEngine::Execute(const HostKernel& kernel, absl::Duration modeled,
                                   absl::Duration* charged) {
  {
    MutexLock lock(&mu_);
    const uint64_t ticket = next_ticket_++;
    while (now_serving_ != ticket) turn_cv_.Wait(&mu_);
  }
  // Our turn: the engine is ours until now_serving_ advances.
  absl::Status status;
  const absl::Time start = absl::Now();
  switch (mode_) {
    case SimGpuOptions::Mode::kCompute:
      if (kernel.body) status = kernel.body();
      if (status.ok()) {
        *charged = std::max(modeled, absl::Now() - start);
        SleepUntil(start + modeled);
      } else {
        *charged = absl::Now() - start;
      }
      break;
    case SimGpuOptions::Mode::kTiming:
      *charged = modeled;
      if (kernel.run_in_timing_mode && kernel.body) {
        status = kernel.body();
        *charged = std::max(modeled, absl::Now() - start);
      }
      SleepUntil(start + modeled);
      break;
    case SimGpuOptions::Mode::kFunctional:
      if (kernel.body) status = kernel.body();
      *charged = absl::Now() - start;
      break;
  }
  MutexLock lock(&mu_);
  busy_ += *charged;
  ++kernel_count_;
  ++now_serving_;
  turn_cv_.SignalAll();
  return status;
}

absl::Duration SimGpuEngine::BusyTime() const {
  MutexLock lock(&mu_);
  return busy_;
}

int64_t SimGpuEngine::KernelCount() const {
  MutexLock lock(&mu_);
  return kernel_count_;
}

}  // namespace minitf::se
