#include "runtime/gpu_pacing.h"

#include <cmath>

#include "gtest/gtest.h"

namespace minitf {
namespace {

using absl::Milliseconds;
using absl::ZeroDuration;

StepMeasurement Step(absl::Duration wall, absl::Duration gpu_busy,
                     absl::Duration slots = ZeroDuration(), int launches = 10) {
  StepMeasurement m;
  m.wall = wall;
  m.gpu_busy = gpu_busy;
  m.slots = slots;
  m.launches = launches;
  return m;
}

// Runs `steps` steps of a job whose every step keeps the GPU busy for
// `busy` and is active (not idling) for `active`, applying each decision:
// the manager inserts `slot_fraction` of the budget as slots during the
// step, and the caller sleeps what it is told. Returns busy / (wall + sleeps)
// over the whole run, the last sleep included.
double SimulatedShare(PacingController* pacing, int steps, absl::Duration busy,
                      absl::Duration active, double slot_fraction) {
  absl::Duration budget, slept, total_busy, total_time;
  for (int i = 0; i < steps; ++i) {
    const absl::Duration slots = budget * slot_fraction;
    const PacingDecision d = pacing->OnStep(Step(active + slots, busy, slots), slept);
    EXPECT_GE(d.sleep_after_step, ZeroDuration());
    EXPECT_GE(d.next_step_budget, ZeroDuration());
    total_busy += busy;
    total_time += active + slots + d.sleep_after_step;
    slept = d.sleep_after_step;
    budget = d.next_step_budget;
  }
  return absl::FDivDuration(total_busy, total_time);
}

TEST(PacingPolicyTest, NamesRoundTripAndUnknownNamesAreRejected) {
  for (PacingPolicy p : {PacingPolicy::kAntMan, PacingPolicy::kPrecise, PacingPolicy::kSms}) {
    absl::StatusOr<PacingPolicy> parsed = ParsePacingPolicy(PacingPolicyName(p));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, p);
  }
  absl::StatusOr<PacingPolicy> bad = ParsePacingPolicy("fastest");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("fastest"), absl::string_view::npos);
}

TEST(PacingControllerTest, SmsPolicyNeverAsksForIdle) {
  // Its target is a share of the SMs, which the job's SM partition holds
  // to: however busy the job is, no idle is inserted.
  PacingController pacing(PacingPolicy::kSms);
  pacing.SetTarget(10);
  for (int i = 0; i < 5; ++i) {
    const PacingDecision d = pacing.OnStep(Step(Milliseconds(10), Milliseconds(10)), ZeroDuration());
    EXPECT_EQ(d.sleep_after_step, ZeroDuration());
    EXPECT_EQ(d.next_step_budget, ZeroDuration());
  }
}

TEST(PacingControllerTest, AntManIdleIsActiveTimeScaledMinusFixedCost) {
  PacingController pacing(PacingPolicy::kAntMan);
  pacing.SetTarget(25);
  // Active time 10ms: idle = 10ms * 75 / 25 - 50us; the 2ms of slots were
  // already idle, so only the rest is slept.
  const PacingDecision d =
      pacing.OnStep(Step(Milliseconds(12), Milliseconds(4), Milliseconds(2)), ZeroDuration());
  const absl::Duration idle = Milliseconds(30) - absl::Microseconds(50);
  EXPECT_EQ(d.next_step_budget, idle);
  EXPECT_EQ(d.sleep_after_step, idle - Milliseconds(2));
}

TEST(PacingControllerTest, AntManIgnoresGpuBusyTime) {
  PacingController a(PacingPolicy::kAntMan), b(PacingPolicy::kAntMan);
  a.SetTarget(40);
  b.SetTarget(40);
  const PacingDecision da = a.OnStep(Step(Milliseconds(10), Milliseconds(1)), ZeroDuration());
  const PacingDecision db = b.OnStep(Step(Milliseconds(10), Milliseconds(9)), ZeroDuration());
  EXPECT_EQ(da.sleep_after_step, db.sleep_after_step);
  EXPECT_EQ(da.next_step_budget, db.next_step_budget);
}

TEST(PacingControllerTest, AntManNeverAsksForNegativeIdle) {
  PacingController pacing(PacingPolicy::kAntMan);
  pacing.SetTarget(90);
  // 100us active: 100us * 10 / 90 < the 50us fixed cost.
  PacingDecision d = pacing.OnStep(Step(absl::Microseconds(100), ZeroDuration()), ZeroDuration());
  EXPECT_EQ(d.next_step_budget, ZeroDuration());
  EXPECT_EQ(d.sleep_after_step, ZeroDuration());
  // Slots beyond this step's idle are not paid back by a negative sleep.
  pacing.SetTarget(50);
  d = pacing.OnStep(Step(Milliseconds(30), Milliseconds(5), Milliseconds(25)), ZeroDuration());
  EXPECT_EQ(d.next_step_budget, Milliseconds(5) - absl::Microseconds(50));
  EXPECT_EQ(d.sleep_after_step, ZeroDuration());
}

TEST(PacingControllerTest, PreciseConvergesToTheTargetShare) {
  // Busy 8ms of 10ms active: the job alone would hold 80% of the GPU.
  for (int p : {10, 30, 50, 70}) {
    for (double slot_fraction : {0.0, 0.6, 1.0}) {
      PacingController pacing(PacingPolicy::kPrecise);
      pacing.SetTarget(p);
      const double share =
          SimulatedShare(&pacing, 20, Milliseconds(8), Milliseconds(10), slot_fraction);
      EXPECT_NEAR(share * 100, p, 0.5) << "p=" << p << " slot_fraction=" << slot_fraction;
    }
  }
}

TEST(PacingControllerTest, PreciseConvergesWhenEveryStepEstimateIsOff) {
  // Busy time alternates 5ms / 11ms and active time 9ms / 13ms, so the
  // "next step is like this one" estimate is always wrong; the integral
  // still holds the long-run share.
  for (int p : {10, 30, 50}) {
    PacingController pacing(PacingPolicy::kPrecise);
    pacing.SetTarget(p);
    absl::Duration budget, slept, total_busy, total_time;
    for (int i = 0; i < 40; ++i) {
      const absl::Duration busy = Milliseconds(i % 2 == 0 ? 5 : 11);
      const absl::Duration active = Milliseconds(i % 2 == 0 ? 9 : 13);
      const absl::Duration slots = budget / 2;
      const PacingDecision d = pacing.OnStep(Step(active + slots, busy, slots), slept);
      total_busy += busy;
      total_time += active + slots + d.sleep_after_step;
      slept = d.sleep_after_step;
      budget = d.next_step_budget;
    }
    EXPECT_NEAR(absl::FDivDuration(total_busy, total_time) * 100, p, 0.5) << "p=" << p;
  }
}

TEST(PacingControllerTest, PreciseTargetAboveTheAchievableShareInsertsNoIdle) {
  PacingController pacing(PacingPolicy::kPrecise);
  pacing.SetTarget(90);  // The job reaches only 80% unrestricted.
  for (int i = 0; i < 10; ++i) {
    const PacingDecision d =
        pacing.OnStep(Step(Milliseconds(10), Milliseconds(8)), ZeroDuration());
    EXPECT_EQ(d.sleep_after_step, ZeroDuration());
    EXPECT_EQ(d.next_step_budget, ZeroDuration());
  }
  EXPECT_NEAR(pacing.AchievedShare(), 0.8, 1e-9);
}

TEST(PacingControllerTest, PreciseSleepsWhatTheSlotsLeftOfTheBudget) {
  PacingController pacing(PacingPolicy::kPrecise);
  pacing.SetTarget(50);
  // B = 8, W = 10, a = 10: idle = 16 / 0.5 - 10 - 0 - 10 = 12ms.
  PacingDecision d = pacing.OnStep(Step(Milliseconds(10), Milliseconds(8)), ZeroDuration());
  EXPECT_EQ(d.sleep_after_step, ZeroDuration());  // No budget was handed out before.
  EXPECT_EQ(d.next_step_budget, Milliseconds(12));
  // The next step inserted 5ms of the 12ms as slots: 7ms are slept now.
  d = pacing.OnStep(Step(Milliseconds(15), Milliseconds(8), Milliseconds(5)), ZeroDuration());
  EXPECT_EQ(d.sleep_after_step, Milliseconds(7));
}

TEST(PacingControllerTest, PreciseTreatsUnknownBusyTimeAsActiveTime) {
  PacingController unknown(PacingPolicy::kPrecise), known(PacingPolicy::kPrecise);
  unknown.SetTarget(40);
  known.SetTarget(40);
  for (int i = 0; i < 5; ++i) {
    const PacingDecision du = unknown.OnStep(
        Step(Milliseconds(12), ZeroDuration(), Milliseconds(2)), Milliseconds(i));
    const PacingDecision dk = known.OnStep(
        Step(Milliseconds(12), Milliseconds(10), Milliseconds(2)), Milliseconds(i));
    EXPECT_EQ(du.sleep_after_step, dk.sleep_after_step);
    EXPECT_EQ(du.next_step_budget, dk.next_step_budget);
  }
  EXPECT_DOUBLE_EQ(unknown.AchievedShare(), known.AchievedShare());
}

TEST(PacingControllerTest, PreciseCapsTheIdleOfOneStep) {
  PacingController pacing(PacingPolicy::kPrecise);
  pacing.SetTarget(50);
  // Two 10ms fully busy steps whose 20ms budget the caller never slept off.
  pacing.OnStep(Step(Milliseconds(10), Milliseconds(10)), ZeroDuration());
  pacing.OnStep(Step(Milliseconds(10), Milliseconds(10)), ZeroDuration());
  // Then a 1ms step: the debt asks for 12ms, more than 10 active times
  // (10ms) and twice the steady-state idle (2ms).
  const PacingDecision d =
      pacing.OnStep(Step(Milliseconds(1), Milliseconds(1)), ZeroDuration());
  EXPECT_EQ(d.next_step_budget,
            Milliseconds(1) * PacingController::kPreciseIdleCapFactor);
}

TEST(PacingControllerTest, PreciseCreditsASlowFirstStepForOneStepPeriodOnly) {
  PacingController pacing(PacingPolicy::kPrecise);
  pacing.SetTarget(15);
  // A 2s first step (building, allocating) that kept the GPU busy 8ms: far
  // below 15%. Steady state is 8ms busy in 10ms active, so one step period
  // at 15% is 8 / 0.15 = 53.3ms and its idle 43.3ms.
  PacingDecision d = pacing.OnStep(Step(absl::Seconds(2), Milliseconds(8)), ZeroDuration());
  EXPECT_EQ(d.next_step_budget, ZeroDuration());  // Credit: one period.
  // The credit runs out within the next step: pacing resumes, rather than
  // the job running unrestricted until 15% of those 2s is used up.
  d = pacing.OnStep(Step(Milliseconds(10), Milliseconds(8)), d.sleep_after_step);
  EXPECT_GT(d.next_step_budget, Milliseconds(30));
  // And holds the target from there on.
  absl::Duration budget = d.next_step_budget, slept = d.sleep_after_step;
  absl::Duration total_busy, total_time;
  for (int i = 0; i < 20; ++i) {
    d = pacing.OnStep(Step(Milliseconds(10) + budget, Milliseconds(8), budget), slept);
    total_busy += Milliseconds(8);
    total_time += Milliseconds(10) + budget + d.sleep_after_step;
    budget = d.next_step_budget;
    slept = d.sleep_after_step;
  }
  EXPECT_NEAR(absl::FDivDuration(total_busy, total_time) * 100, 15, 0.5);
  // The status still reports the share achieved over all the time.
  EXPECT_LT(pacing.AchievedShare(), 0.10);
}

TEST(PacingControllerTest, UnrestrictedTargetGivesZeroDecisions) {
  for (PacingPolicy policy : {PacingPolicy::kAntMan, PacingPolicy::kPrecise}) {
    PacingController pacing(policy);
    pacing.SetTarget(30);
    pacing.OnStep(Step(Milliseconds(10), Milliseconds(8)), ZeroDuration());
    pacing.SetTarget(100);
    for (int i = 0; i < 3; ++i) {
      const PacingDecision d =
          pacing.OnStep(Step(Milliseconds(10), Milliseconds(8)), ZeroDuration());
      EXPECT_EQ(d.sleep_after_step, ZeroDuration()) << PacingPolicyName(policy);
      EXPECT_EQ(d.next_step_budget, ZeroDuration()) << PacingPolicyName(policy);
    }
    // Out-of-range targets are clamped: above 100 is unrestricted too.
    pacing.SetTarget(150);
    EXPECT_EQ(pacing.target(), 100);
  }
}

TEST(PacingControllerTest, NewTargetResetsTheHistory) {
  PacingController pacing(PacingPolicy::kPrecise);
  pacing.SetTarget(30);
  for (int i = 0; i < 5; ++i) {
    pacing.OnStep(Step(Milliseconds(10), Milliseconds(8)), Milliseconds(3));
  }
  EXPECT_GT(pacing.AchievedShare(), 0.0);
  pacing.SetTarget(60);
  EXPECT_EQ(pacing.AchievedShare(), 0.0);
  // The first decision after the reset is a fresh controller's.
  PacingController fresh(PacingPolicy::kPrecise);
  fresh.SetTarget(60);
  const StepMeasurement m = Step(Milliseconds(14), Milliseconds(8), Milliseconds(4));
  const PacingDecision d = pacing.OnStep(m, ZeroDuration());
  const PacingDecision f = fresh.OnStep(m, ZeroDuration());
  EXPECT_EQ(d.sleep_after_step, f.sleep_after_step);
  EXPECT_EQ(d.next_step_budget, f.next_step_budget);
}

TEST(PacingControllerTest, SettingTheSameTargetKeepsTheHistory) {
  PacingController pacing(PacingPolicy::kPrecise);
  pacing.SetTarget(30);
  pacing.OnStep(Step(Milliseconds(10), Milliseconds(5)), ZeroDuration());
  const double before = pacing.AchievedShare();
  pacing.SetTarget(30);
  EXPECT_EQ(pacing.AchievedShare(), before);
  pacing.Reset();
  EXPECT_EQ(pacing.AchievedShare(), 0.0);
}

TEST(PacingControllerTest, AchievedShareCountsReportedSleeps) {
  PacingController pacing(PacingPolicy::kAntMan);
  pacing.SetTarget(50);
  pacing.OnStep(Step(Milliseconds(10), Milliseconds(5)), ZeroDuration());
  EXPECT_DOUBLE_EQ(pacing.AchievedShare(), 0.5);
  // 10ms slept after the first step: 10 busy / (10 + 10 + 20) wall.
  pacing.OnStep(Step(Milliseconds(20), Milliseconds(5)), Milliseconds(10));
  EXPECT_DOUBLE_EQ(pacing.AchievedShare(), 0.25);
}

}  // namespace
}  // namespace minitf
