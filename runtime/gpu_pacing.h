// PacingController: how much idle time a job sharing a GPU must insert so
// that its GPU busy share is a target percentage (AntMan's perfControl).
//
//   PacingController pacing(PacingPolicy::kPrecise);
//   pacing.SetTarget(30);                              // 30% of the GPU
//   // after every step:
//   PacingDecision d = pacing.OnStep(measured, slept_after_previous_step);
//   manager->BeginStep(d.next_step_budget, measured.launches);
//   SleepFor(d.sleep_after_step);
//
// Idle is inserted in two places: a sleep after the step, which the caller
// does, and idle slots before the job's queued GPU ops during the next step,
// which the device's GpuOpManager inserts out of the budget given here.
// This file is pure arithmetic: no clocks, no threads.
#ifndef MINITF_RUNTIME_GPU_PACING_H_
#define MINITF_RUNTIME_GPU_PACING_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace minitf {

// kAntMan: AntMan's published rule. The idle after a step is proportional
// to the step's active time, so the job runs at perfControl% of its own
// unrestricted speed, whatever share of the GPU that turns out to be.
//
// kPrecise: perfControl% of GPU time. The job's measured GPU busy time is
// held to the target fraction of the wall time, integrated since the target
// was set so that per-step estimation errors cancel out in the long run.
// Time spent below the target (a slow first step, a host-bound stretch) is
// credited for at most one step period, so it never buys a burst.
//
// kSms: no idle at all. perfControl% is the job's share of the GPU's SMs:
// its streams run in an SM partition (GPUOptions.sm_fraction, a green
// context) whose share the control plane sets, so the job's kernels run
// beside the others' instead of waiting between steps. Decisions are zero.
enum class PacingPolicy { kAntMan, kPrecise, kSms };

// "antman", "precise" or "sms"; InvalidArgument naming the accepted values
// otherwise.
absl::StatusOr<PacingPolicy> ParsePacingPolicy(absl::string_view name);
const char* PacingPolicyName(PacingPolicy policy);

// What one finished step measured.
struct StepMeasurement {
  absl::Duration wall;      // The step's wall time, idle slots inserted during it included.
  absl::Duration gpu_busy;  // The job's GPU busy time during the step; zero: unknown.
  absl::Duration slots;     // Idle the GpuOpManager inserted during the step.
  int launches = 0;         // GPU ops launched through the GpuOpManager during the step.
};

// What to do at a step boundary. Both are zero when the job is unrestricted.
struct PacingDecision {
  absl::Duration sleep_after_step;  // The caller sleeps this long now.
  absl::Duration next_step_budget;  // Idle the GpuOpManager may insert as slots next step.
};

// One per job and GPU device. Not thread-safe: the session calls it at step
// boundaries, from one thread at a time.
class PacingController {
 public:
  // AntMan's estimate of the fixed cost of a step boundary, subtracted from
  // the idle it asks for.
  static constexpr absl::Duration kAntManFixedCost = absl::Microseconds(50);
  // kPrecise never asks for more idle in one step than this many times the
  // step's active time, or twice the idle the target needs in steady state,
  // whichever is larger. The integral would otherwise answer one stalled or
  // mismeasured step with an arbitrarily long pause.
  static constexpr int kPreciseIdleCapFactor = 10;

  explicit PacingController(PacingPolicy policy) : policy_(policy) {}

  PacingPolicy policy() const { return policy_; }
  int target() const { return target_; }

  // Sets the target share in percent, clamped to 1..100; 100 means
  // unrestricted (every decision is zero). A new target starts a new
  // history (Reset); setting the current target again changes nothing, so a
  // caller may re-apply its configuration every step.
  void SetTarget(int perf_control);
  // Forgets every step measured so far and any budget handed out.
  void Reset();

  // Called after each step with what it measured and the sleep actually
  // done after the previous decision (as measured by the caller; zero
  // after the first step). Returns what to do now.
  PacingDecision OnStep(const StepMeasurement& m, absl::Duration slept_after_previous_step);

  // Cumulative busy time / cumulative (wall + sleeps) since the history
  // started; the sleep decided by the latest OnStep is not in it yet. 0 when
  // nothing was measured.
  double AchievedShare() const;

 private:
  // The step's busy time: gpu_busy, or its active time (wall - slots) when
  // the platform reports none (gpu_busy zero with a nonzero wall), which
  // treats the job as GPU-bound.
  static absl::Duration BusyOf(const StepMeasurement& m);

  PacingDecision AntManDecision(const StepMeasurement& m) const;
  PacingDecision PreciseDecision(const StepMeasurement& m);

  const PacingPolicy policy_;
  int target_ = 100;
  // Since the history started: the job's busy time, and its wall time
  // including the sleeps reported so far.
  absl::Duration total_busy_;
  absl::Duration total_wall_;
  // The part of total_wall_ kPrecise no longer counts: time below the
  // target share beyond one step period of credit (anti-windup).
  absl::Duration forgiven_;
  // The next_step_budget of the latest decision: what the step now being
  // measured could insert as slots or else sleep after (kPrecise).
  absl::Duration budget_;
};

// The idle slot the GpuOpManager waits before the launch at the head of its
// queue, never negative:
//   antman:  remaining budget / launches queued (the head included);
//   precise: remaining budget / max(1, expected launches - launches made this step).
absl::Duration SlotFor(PacingPolicy policy, absl::Duration remaining_budget, int queued,
                       int expected_launches, int launches_made);

}  // namespace minitf

#endif  // MINITF_RUNTIME_GPU_PACING_H_
