#include "runtime/gpu_op_manager.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "platform/mutex.h"

namespace minitf {
namespace {

using absl::Milliseconds;
using absl::ZeroDuration;

// Generous bound on how long a launch that should run promptly may take to
// be observed; a liveness limit, not a performance assertion.
constexpr absl::Duration kLiveness = absl::Seconds(60);

// Records the order launches ran in and lets a test wait for a count.
class LaunchLog {
 public:
  std::function<void()> Launch(int id) {
    return [this, id] {
      MutexLock lock(&mu_);
      order_.push_back(id);
      cv_.SignalAll();
    };
  }
  // Waits until `n` launches ran; false after kLiveness.
  bool WaitFor(size_t n) {
    const absl::Time deadline = absl::Now() + kLiveness;
    MutexLock lock(&mu_);
    while (order_.size() < n) {
      const absl::Duration left = deadline - absl::Now();
      if (left <= ZeroDuration()) return false;
      cv_.WaitWithTimeout(&mu_, left);
    }
    return true;
  }
  std::vector<int> order() {
    MutexLock lock(&mu_);
    return order_;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  std::vector<int> order_ ABSL_GUARDED_BY(mu_);
};

TEST(SlotForTest, AntManSplitsTheRemainingBudgetOverTheQueue) {
  EXPECT_EQ(SlotFor(PacingPolicy::kAntMan, Milliseconds(20), 4, 0, 0), Milliseconds(5));
  EXPECT_EQ(SlotFor(PacingPolicy::kAntMan, Milliseconds(20), 1, 8, 0), Milliseconds(20));
  // Expected and made launches play no part.
  EXPECT_EQ(SlotFor(PacingPolicy::kAntMan, Milliseconds(20), 2, 100, 3), Milliseconds(10));
}

TEST(SlotForTest, PreciseSplitsTheRemainingBudgetOverTheLaunchesStillExpected) {
  EXPECT_EQ(SlotFor(PacingPolicy::kPrecise, Milliseconds(20), 1, 4, 0), Milliseconds(5));
  EXPECT_EQ(SlotFor(PacingPolicy::kPrecise, Milliseconds(15), 1, 4, 1), Milliseconds(5));
  EXPECT_EQ(SlotFor(PacingPolicy::kPrecise, Milliseconds(5), 7, 4, 3), Milliseconds(5));
  // More launches than expected: the rest of the budget goes to the next one.
  EXPECT_EQ(SlotFor(PacingPolicy::kPrecise, Milliseconds(6), 1, 4, 9), Milliseconds(6));
  // The queue length plays no part.
  EXPECT_EQ(SlotFor(PacingPolicy::kPrecise, Milliseconds(20), 10, 2, 0), Milliseconds(10));
}

TEST(SlotForTest, NoBudgetMeansNoSlot) {
  for (PacingPolicy p : {PacingPolicy::kAntMan, PacingPolicy::kPrecise}) {
    EXPECT_EQ(SlotFor(p, ZeroDuration(), 3, 3, 0), ZeroDuration());
    EXPECT_EQ(SlotFor(p, -Milliseconds(1), 3, 3, 0), ZeroDuration());
    EXPECT_EQ(SlotFor(p, Milliseconds(3), 0, 0, 0), Milliseconds(3));
  }
}

TEST(GpuOpManagerTest, LaunchesRunInFifoOrder) {
  LaunchLog log;
  GpuOpManager manager("/device:GPU:0");
  manager.SetActive(true);
  manager.BeginStep(ZeroDuration(), 0);
  constexpr int kLaunches = 200;
  for (int i = 0; i < kLaunches; ++i) manager.Enqueue(log.Launch(i));
  ASSERT_TRUE(log.WaitFor(kLaunches));
  const std::vector<int> order = log.order();
  for (int i = 0; i < kLaunches; ++i) EXPECT_EQ(order[i], i);
  EXPECT_EQ(manager.total_launches(), kLaunches);
}

TEST(GpuOpManagerTest, InactiveManagerRunsLaunchesWithoutSlots) {
  LaunchLog log;
  GpuOpManager manager("/device:GPU:0");
  ASSERT_FALSE(manager.active());
  // Even with a budget: an inactive manager inserts no idle.
  manager.BeginStep(absl::Hours(1), 3);
  for (int i = 0; i < 3; ++i) manager.Enqueue(log.Launch(i));
  ASSERT_TRUE(log.WaitFor(3));
  EXPECT_EQ(manager.total_launches(), 3);
  EXPECT_EQ(manager.total_slots(), ZeroDuration());
  const GpuOpManager::StepCounters step = manager.BeginStep(ZeroDuration(), 0);
  EXPECT_EQ(step.launches, 3);
  EXPECT_EQ(step.slots, ZeroDuration());
  EXPECT_EQ(step.unused_budget, absl::Hours(1));
}

TEST(GpuOpManagerTest, PreciseSlotsConsumeTheWholeBudgetOverTheExpectedLaunches) {
  LaunchLog log;
  GpuOpManager manager("/device:GPU:0");
  manager.SetPolicy(PacingPolicy::kPrecise);
  manager.SetActive(true);
  const absl::Duration budget = Milliseconds(20);
  manager.BeginStep(budget, 4);
  for (int i = 0; i < 4; ++i) manager.Enqueue(log.Launch(i));
  ASSERT_TRUE(log.WaitFor(4));
  const GpuOpManager::StepCounters step = manager.BeginStep(ZeroDuration(), 4);
  EXPECT_EQ(step.launches, 4);
  // Nothing cut a slot short: each of the four waited its 5ms.
  EXPECT_EQ(step.slots, budget);
  EXPECT_EQ(step.unused_budget, ZeroDuration());
  EXPECT_EQ(manager.total_slots(), budget);
}

TEST(GpuOpManagerTest, RecordedSlotsAreTheIdleWaitedInLaunchOrder) {
  LaunchLog log;
  GpuOpManager manager("/device:GPU:0");
  manager.SetPolicy(PacingPolicy::kPrecise);
  manager.SetActive(true);
  manager.BeginStep(Milliseconds(8), 2);
  manager.Enqueue(log.Launch(0));  // Not recorded: recording is off.
  ASSERT_TRUE(log.WaitFor(1));
  EXPECT_TRUE(manager.TakeSlots().empty());

  manager.RecordSlots(true);
  const absl::Time before = absl::Now();
  manager.BeginStep(Milliseconds(8), 2);
  manager.Enqueue(log.Launch(1));
  manager.Enqueue(log.Launch(2));
  ASSERT_TRUE(log.WaitFor(3));
  const GpuOpManager::StepCounters step = manager.BeginStep(ZeroDuration(), 2);
  int64_t dropped = -1;
  const std::vector<GpuOpManager::IdleSlot> slots = manager.TakeSlots(&dropped);
  EXPECT_EQ(dropped, 0);
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_EQ(slots[0].length + slots[1].length, step.slots);
  EXPECT_GE(slots[0].start, before);
  EXPECT_GE(slots[1].start, slots[0].start + slots[0].length);
  // Taken: the next call starts empty.
  EXPECT_TRUE(manager.TakeSlots().empty());
}

TEST(GpuOpManagerTest, AntManGivesALoneLaunchTheWholeRemainingBudget) {
  for (PacingPolicy policy : {PacingPolicy::kAntMan, PacingPolicy::kPrecise}) {
    LaunchLog log;
    GpuOpManager manager("/device:GPU:0");
    manager.SetPolicy(policy);
    manager.SetActive(true);
    manager.BeginStep(Milliseconds(8), 4);
    manager.Enqueue(log.Launch(0));
    ASSERT_TRUE(log.WaitFor(1));
    const GpuOpManager::StepCounters step = manager.BeginStep(ZeroDuration(), 0);
    EXPECT_EQ(step.launches, 1);
    // antman: one launch queued takes all 8ms; precise: 8ms / 4 expected.
    const absl::Duration want =
        policy == PacingPolicy::kAntMan ? Milliseconds(8) : Milliseconds(2);
    EXPECT_EQ(step.slots, want) << PacingPolicyName(policy);
    EXPECT_EQ(step.slots + step.unused_budget, Milliseconds(8));
  }
}

TEST(GpuOpManagerTest, BeginStepDuringASlotLaunchesAtOnceAndChargesOnlyTheIdleWaited) {
  LaunchLog log;
  GpuOpManager manager("/device:GPU:0");
  manager.SetActive(true);
  const absl::Duration budget = absl::Hours(1);
  manager.BeginStep(budget, 1);
  manager.Enqueue(log.Launch(0));
  absl::SleepFor(Milliseconds(5));  // Most likely inside the slot by now.
  const GpuOpManager::StepCounters ended = manager.BeginStep(ZeroDuration(), 0);
  ASSERT_TRUE(log.WaitFor(1)) << "the slot was not woken";
  EXPECT_LT(ended.slots, budget);
  EXPECT_EQ(ended.slots + ended.unused_budget, budget);
  // The idle waited belongs to the step that ended, not to the new one.
  const GpuOpManager::StepCounters next = manager.BeginStep(ZeroDuration(), 0);
  EXPECT_EQ(next.slots, ZeroDuration());
  EXPECT_EQ(manager.total_slots(), ended.slots);
}

TEST(GpuOpManagerTest, SetActiveFalseDuringASlotLaunchesAtOnce) {
  LaunchLog log;
  GpuOpManager manager("/device:GPU:0");
  manager.SetActive(true);
  const absl::Duration budget = absl::Hours(1);
  manager.BeginStep(budget, 1);
  manager.Enqueue(log.Launch(0));
  absl::SleepFor(Milliseconds(5));
  manager.SetActive(false);
  ASSERT_TRUE(log.WaitFor(1)) << "the slot was not woken";
  const GpuOpManager::StepCounters step = manager.BeginStep(ZeroDuration(), 0);
  EXPECT_EQ(step.launches, 1);
  EXPECT_LT(step.slots, budget);
  EXPECT_EQ(step.slots + step.unused_budget, budget);
}

TEST(GpuOpManagerTest, DestructorRunsEveryQueuedLaunch) {
  LaunchLog log;
  {
    GpuOpManager manager("/device:GPU:0");
    manager.SetActive(true);
    manager.BeginStep(absl::Hours(1), 5);
    for (int i = 0; i < 5; ++i) manager.Enqueue(log.Launch(i));
  }
  EXPECT_EQ(log.order(), (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(GpuOpManagerTest, ALaunchMayEnqueueAnother) {
  LaunchLog log;
  GpuOpManager manager("/device:GPU:0");
  manager.SetActive(true);
  manager.BeginStep(Milliseconds(1), 2);
  std::function<void()> second = log.Launch(1);
  manager.Enqueue([&] {
    log.Launch(0)();
    manager.Enqueue(second);
  });
  ASSERT_TRUE(log.WaitFor(2));
  EXPECT_EQ(log.order(), (std::vector<int>{0, 1}));
  EXPECT_EQ(manager.total_launches(), 2);
}

TEST(GpuOpManagerTest, BeginStepCountsLaunchesPerStep) {
  LaunchLog log;
  GpuOpManager manager("/device:GPU:0");
  manager.SetActive(true);
  manager.BeginStep(ZeroDuration(), 0);
  for (int i = 0; i < 3; ++i) manager.Enqueue(log.Launch(i));
  ASSERT_TRUE(log.WaitFor(3));
  EXPECT_EQ(manager.BeginStep(ZeroDuration(), 3).launches, 3);
  for (int i = 3; i < 5; ++i) manager.Enqueue(log.Launch(i));
  ASSERT_TRUE(log.WaitFor(5));
  EXPECT_EQ(manager.BeginStep(ZeroDuration(), 2).launches, 2);
  EXPECT_EQ(manager.total_launches(), 5);
}

}  // namespace
}  // namespace minitf
