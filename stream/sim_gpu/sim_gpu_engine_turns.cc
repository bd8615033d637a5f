#include "stream/sim_gpu/sim_gpu_engine_turns.h"

#include "absl/time/clock.h"

namespace minitf::se {

LocalEngineTurns::LocalEngineTurns(const SmPoolConfig& sms) {
  MutexLock lock(&mu_);
  sms_.Init(sms);
}

absl::StatusOr<EngineTurn> LocalEngineTurns::Acquire(int rank) {
  MutexLock lock(&mu_);
  const EngineTurn turn{rank, next_ticket_++};
  AcquireLocked(turn);
  return turn;
}

void LocalEngineTurns::AcquireLocked(const EngineTurn& turn) {
  waiting_.insert(turn);
  if (taken_ && turn.rank < running_.rank) preempt_cv_.Signal();
  while (taken_ || *waiting_.begin() != turn) turn_cv_.Wait(&mu_);
  waiting_.erase(turn);
  taken_ = true;
  running_ = turn;
}

void LocalEngineTurns::Release(const EngineTurn& /*turn*/) {
  MutexLock lock(&mu_);
  ReleaseLocked();
}

void LocalEngineTurns::ReleaseLocked() {
  taken_ = false;
  turn_cv_.SignalAll();
}

bool LocalEngineTurns::WaitOutranked(const EngineTurn& turn, absl::Time deadline) {
  MutexLock lock(&mu_);
  const auto outranked = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !waiting_.empty() && waiting_.begin()->rank < turn.rank; };
  absl::Time now = absl::Now();
  while (now < deadline && !outranked()) {
    preempt_cv_.WaitWithTimeout(&mu_, deadline - now);
    now = absl::Now();
  }
  return outranked();
}

absl::Status LocalEngineTurns::Yield(const EngineTurn& turn) {
  MutexLock lock(&mu_);
  ReleaseLocked();
  AcquireLocked(turn);
  return absl::OkStatus();
}

int LocalEngineTurns::Waiting() const {
  MutexLock lock(&mu_);
  return static_cast<int>(waiting_.size());
}

SmRunResult LocalEngineTurns::RunOnSms(SmRequest request, absl::Time ready,
                                       const std::function<absl::Status()>& body,
                                       const AfterBody& after_body) {
  MutexLock lock(&mu_);
  request.pid = 0;
  request.context = 0;
  const SmWaitOps ops{
      .wait = [this](absl::Duration timeout)
          ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { sm_cv_.WaitWithTimeout(&mu_, timeout); },
      .wake_all = [this] { sm_cv_.SignalAll(); },
      .unlocked =
          [this](const std::function<void()>& f) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
            mu_.Unlock();
            f();
            mu_.Lock();
          },
  };
  return RunOnSmPool(&sms_, request, ready, body, after_body, ops);
}

int LocalEngineTurns::SmWaiting() const {
  MutexLock lock(&mu_);
  return sms_.Waiting();
}

}  // namespace minitf::se
