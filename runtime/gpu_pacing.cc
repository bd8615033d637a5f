#include "runtime/gpu_pacing.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace minitf {

absl::StatusOr<PacingPolicy> ParsePacingPolicy(absl::string_view name) {
  if (name == "antman") return PacingPolicy::kAntMan;
  if (name == "precise") return PacingPolicy::kPrecise;
  if (name == "sms") return PacingPolicy::kSms;
  return absl::InvalidArgumentError(absl::StrCat("unknown GPU pacing policy '", name,
                                                 "' (expected 'antman', 'precise' or 'sms')"));
}

const char* PacingPolicyName(PacingPolicy policy) {
  switch (policy) {
    case PacingPolicy::kAntMan:
      return "antman";
    case PacingPolicy::kPrecise:
      return "precise";
    case PacingPolicy::kSms:
      return "sms";
  }
  return "unknown";
}

void PacingController::SetTarget(int perf_control) {
  const int target = std::clamp(perf_control, 1, 100);
  if (target == target_) return;
  target_ = target;
  Reset();
}

void PacingController::Reset() {
  total_busy_ = absl::ZeroDuration();
  total_wall_ = absl::ZeroDuration();
  forgiven_ = absl::ZeroDuration();
  budget_ = absl::ZeroDuration();
}

absl::Duration PacingController::BusyOf(const StepMeasurement& m) {
  if (m.gpu_busy > absl::ZeroDuration() || m.wall <= absl::ZeroDuration()) return m.gpu_busy;
  return std::max(m.wall - m.slots, absl::ZeroDuration());
}

PacingDecision PacingController::OnStep(const StepMeasurement& m,
                                        absl::Duration slept_after_previous_step) {
  total_busy_ += BusyOf(m);
  total_wall_ += m.wall + std::max(slept_after_previous_step, absl::ZeroDuration());
  if (target_ >= 100) return PacingDecision{};
  switch (policy_) {
    case PacingPolicy::kAntMan:
      return AntManDecision(m);
    case PacingPolicy::kPrecise:
      return PreciseDecision(m);
    case PacingPolicy::kSms:
      break;  // The SM partition holds the job back, not idle time.
  }
  return PacingDecision{};
}

// idle = A (100 - p) / p - fixed cost, A = wall - slots; what this step's
// slots already inserted is not slept again.
PacingDecision PacingController::AntManDecision(const StepMeasurement& m) const {
  const absl::Duration active = std::max(m.wall - m.slots, absl::ZeroDuration());
  const absl::Duration idle = std::max(
      active * (100 - target_) / target_ - kAntManFixedCost, absl::ZeroDuration());
  PacingDecision d;
  d.sleep_after_step = std::max(idle - m.slots, absl::ZeroDuration());
  d.next_step_budget = idle;
  return d;
}

// With s = p / 100, B and W the busy and wall totals (this step and the
// sleeps so far included), and the next step estimated as this one (busy b,
// active a), the next step's idle is what makes the totals meet the target:
//   (B + b) / (W + sleep_now + a + idle) = s
//   idle = (B + b) / s - W - sleep_now - a,   clamped to [0, cap],
// where W leaves out the credit beyond one step period (B / s + b / s).
// The sleep now is the part of this step's budget its slots left unused, so
// every budget is spent, as slots or as sleep, and the next step's wall plus
// the sleep after it is a + idle, as the equation assumed.
PacingDecision PacingController::PreciseDecision(const StepMeasurement& m) {
  const double share = target_ / 100.0;
  const absl::Duration busy = BusyOf(m);
  const absl::Duration active = std::max(m.wall - m.slots, absl::ZeroDuration());
  PacingDecision d;
  d.sleep_after_step = std::max(budget_ - m.slots, absl::ZeroDuration());
  const absl::Duration steady_idle = busy / share - active;
  const absl::Duration cap = std::max(active * kPreciseIdleCapFactor, 2 * steady_idle);
  // Anti-windup: time the job spent below its share (a first step that
  // builds and allocates, a host-bound stretch) is credit it could spend
  // later running unrestricted. Keep at most one step period of it.
  const absl::Duration credit = total_wall_ - forgiven_ - total_busy_ / share;
  const absl::Duration max_credit = busy / share;
  if (credit > max_credit) forgiven_ += credit - max_credit;
  const absl::Duration idle =
      (total_busy_ + busy) / share - (total_wall_ - forgiven_) - d.sleep_after_step - active;
  d.next_step_budget = std::clamp(idle, absl::ZeroDuration(), cap);
  budget_ = d.next_step_budget;
  return d;
}

double PacingController::AchievedShare() const {
  if (total_wall_ <= absl::ZeroDuration()) return 0.0;
  return absl::FDivDuration(total_busy_, total_wall_);
}

absl::Duration SlotFor(PacingPolicy policy, absl::Duration remaining_budget, int queued,
                       int expected_launches, int launches_made) {
  if (remaining_budget <= absl::ZeroDuration()) return absl::ZeroDuration();
  const int shares =
      policy == PacingPolicy::kAntMan ? queued : expected_launches - launches_made;
  return remaining_budget / std::max(1, shares);
}

}  // namespace minitf
