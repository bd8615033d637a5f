#include "stream/sim_gpu/sim_gpu_engine.h"

#include <sys/prctl.h>

#include <algorithm>

#include "absl/time/clock.h"
#include "platform/status_macros.h"
#include "stream/sim_gpu/sim_gpu_cost_model.h"
#include "stream/sim_gpu/sim_gpu_sm_run.h"
#include "stream/sm_partition.h"

namespace minitf::se {
namespace {

// Whether the kernel whose body returned OK did its arithmetic (see
// HostKernel::did_work).
bool DidWork(const HostKernel& kernel) { return !kernel.did_work || kernel.did_work(); }

}  // namespace

SimGPUEngine::SimGPUEngine(SimGPUOptions::Mode mode, absl::Duration preempt,
                           EngineTurns* turns, int sm_count)
    : mode_(mode),
      preempt_(preempt),
      sm_count_(std::max(sm_count, 1)),
      own_turns_(turns == nullptr ? std::make_unique<LocalEngineTurns>(SmPoolConfig{
                                        .sm_count = std::max(sm_count, 1),
                                        .share = SimGPUOptions::Share::kPriority,
                                        .drain_ns = absl::ToInt64Nanoseconds(preempt)})
                                  : nullptr),
      turns_(turns == nullptr ? own_turns_.get() : turns) {}

absl::Status SimGPUEngine::Execute(const HostKernel& kernel, absl::Duration modeled,
                                   StreamPriority priority, absl::Duration* charged) {
  absl::Time held_until;
  return Execute(kernel, modeled, priority, absl::Now(), charged, &held_until);
}

absl::Status SimGPUEngine::Execute(const HostKernel& kernel, absl::Duration modeled,
                                   StreamPriority priority, absl::Time ready,
                                   absl::Duration* charged, absl::Time* held_until,
                                   const SmPartition* partition) {
  // Holds end on timed waits: the kernel's default timer slack (50 us) would
  // add to every kernel's time.
  static thread_local const bool precise_timers = [] {
    return prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0;
  }();
  (void)precise_timers;
  if (mode_ == SimGPUOptions::Mode::kTiming) {
    return ExecuteOnSms(kernel, modeled, priority, ready, charged, held_until, partition);
  }
  absl::StatusOr<EngineTurn> turn = turns_->Acquire(EngineRank(priority));
  if (!turn.ok()) {
    *charged = absl::ZeroDuration();
    *held_until = absl::Now();
    return turn.status();
  }
  bool body_ran = false;
  // Without any lock: other kernels queue meanwhile.
  const auto run_body = [&kernel, &body_ran] {
    body_ran = true;
    return kernel.body ? kernel.body() : absl::OkStatus();
  };
  absl::Status status;
  absl::Duration hold;
  const absl::Time start = absl::Now();
  // When the hold begins on the device's clock. A kernel that skips its body
  // begins when it arrived or when the kernel before it ended on that clock,
  // whichever is later: the wake-up that let it take the engine comes after
  // the modeled end, and charging it would slow every kernel of a busy device.
  absl::Time begin = start;
  switch (mode_) {
    case SimGPUOptions::Mode::kCompute:
      status = run_body();
      if (status.ok() && DidWork(kernel)) {
        const absl::Duration body = absl::Now() - start;
        *charged = std::max(modeled, body);
        hold = modeled - body;
      } else {
        *charged = absl::Now() - start;
      }
      break;
    case SimGPUOptions::Mode::kTiming:  // ExecuteOnSms.
      break;
    case SimGPUOptions::Mode::kFunctional:
      status = run_body();
      *charged = absl::Now() - start;
      break;
  }
  // A failed yield gave the turn up already.
  if (absl::Status held = Hold(*turn, begin, hold, held_until); held.ok()) {
    turns_->Release(*turn);
  } else if (status.ok()) {
    status = held;
  }
  Count(kernel.cost.family, *charged, body_ran);
  return status;
}

absl::Status SimGPUEngine::ExecuteOnSms(const HostKernel& kernel, absl::Duration modeled,
                                        StreamPriority priority, absl::Time ready,
                                        absl::Duration* charged, absl::Time* held_until,
                                        const SmPartition* partition) {
  const SmRequest request{
      .rank = EngineRank(priority),
      .width = KernelWidth(kernel.cost, sm_count_),
      .partition = partition != nullptr ? partition->id() : 0,
      .partition_fraction = partition != nullptr ? partition->fraction() : 1.0,
      .work_ns = absl::ToDoubleNanoseconds(modeled)};
  std::function<absl::Status()> body;
  if (kernel.run_in_timing_mode && kernel.body) body = kernel.body;
  bool did_work = true;
  const AfterBody after_body = [&](const absl::Status& status, absl::Duration took) {
    did_work = status.ok() && DidWork(kernel);
    return did_work ? std::max(modeled - took, absl::ZeroDuration()) : absl::ZeroDuration();
  };
  const SmRunResult run = turns_->RunOnSms(request, ready, body, after_body);
  *held_until = run.end;
  *charged = !run.body_ran ? modeled : did_work ? std::max(modeled, run.body_time) : run.body_time;
  {
    MutexLock lock(&mu_);
    preemptions_ += run.preemptions;
  }
  Count(kernel.cost.family, *charged, run.body_ran);
  return run.body_status;
}

void SimGPUEngine::Count(KernelFamily family, absl::Duration charged, bool body_ran) {
  MutexLock lock(&mu_);
  busy_ += charged;
  busy_by_family_[static_cast<int>(family)] += charged;
  ++kernel_count_;
  ++kernel_count_by_family_[static_cast<int>(family)];
  if (body_ran) ++body_count_;
}

absl::Status SimGPUEngine::Hold(const EngineTurn& turn, absl::Time begin, absl::Duration hold,
                                absl::Time* held_until) {
  absl::Duration left = hold;
  absl::Time end = begin + left;
  *held_until = std::max(begin, absl::Now());
  while (left > absl::ZeroDuration()) {
    *held_until = end;
    // Not worth a timed wait: the next kernel begins at `end` on the
    // device's clock all the same.
    if (end - absl::Now() < kShortestHostWait) return absl::OkStatus();
    // Until the end, or until a kernel of a higher priority arrives.
    if (!turns_->WaitOutranked(turn, end)) return absl::OkStatus();
    // Outranked: the blocks in flight drain, then the engine is handed over.
    const absl::Time now = absl::Now();
    absl::SleepFor(std::min(end, now + preempt_) - now);
    left = end - absl::Now();
    *held_until = std::min(end, absl::Now());
    if (left <= absl::ZeroDuration()) return absl::OkStatus();
    {
      MutexLock lock(&mu_);
      ++preemptions_;
    }
    MINITF_RETURN_IF_ERROR(turns_->Yield(turn));
    end = absl::Now() + left;
  }
  return absl::OkStatus();
}

absl::Duration SimGPUEngine::BusyTime() const {
  MutexLock lock(&mu_);
  return busy_;
}

std::array<absl::Duration, kKernelFamilyCount> SimGPUEngine::BusyTimeByFamily() const {
  MutexLock lock(&mu_);
  return busy_by_family_;
}

int64_t SimGPUEngine::KernelCount() const {
  MutexLock lock(&mu_);
  return kernel_count_;
}

std::array<int64_t, kKernelFamilyCount> SimGPUEngine::KernelCountByFamily() const {
  MutexLock lock(&mu_);
  return kernel_count_by_family_;
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
  return mode_ == SimGPUOptions::Mode::kTiming ? turns_->SmWaiting() : turns_->Waiting();
}

}  // namespace minitf::se
