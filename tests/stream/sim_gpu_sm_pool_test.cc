// SimGPU's SM model (sim_gpu_sm_pool.h), driven by explicit times: kernels
// side by side by width, priority order as SMs free up, the drain time
// before a newcomer takes held SMs, timeslices between contexts, MPS caps,
// SM partitions (green contexts).
#include "stream/sim_gpu/sim_gpu_sm_pool.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace minitf::se {
namespace {

using Share = SimGPUOptions::Share;
constexpr int64_t kMs = 1'000'000;  // ns
constexpr int64_t kT0 = 1'000 * kMs;

SmPoolState Pool(Share share = Share::kPriority, int64_t drain_ns = 0,
                 int64_t timeslice_ns = 2 * kMs) {
  SmPoolState pool;
  pool.Init({.sm_count = 100, .share = share, .timeslice_ns = timeslice_ns, .drain_ns = drain_ns});
  pool.AdvanceTo(kT0);
  return pool;
}

SmRequest Kernel(double width, int64_t work_ns, int rank = 0, uint32_t context = 0,
                 double cap = 1) {
  return {.context = context,
          .rank = rank,
          .width = width,
          .cap_fraction = cap,
          .work_ns = static_cast<double>(work_ns)};
}

bool Done(const SmPoolState& pool, int k) {
  return pool.kernel(k).state == SmKernel::State::kDone;
}

TEST(SmPoolTest, AKernelAloneTakesItsModeledTime) {
  SmPoolState pool = Pool();
  const int k = pool.Add(Kernel(100, 3 * kMs), kT0);
  ASSERT_GE(k, 0);
  EXPECT_EQ(pool.ProjectedEnd(k), kT0 + 3 * kMs);
  pool.AdvanceTo(kT0 + 10 * kMs);
  ASSERT_TRUE(Done(pool, k));
  EXPECT_EQ(pool.kernel(k).end_ns, kT0 + 3 * kMs);
}

TEST(SmPoolTest, NarrowKernelsRunSideBySideAtFullSpeed) {
  SmPoolState pool = Pool();
  const int a = pool.Add(Kernel(40, 2 * kMs), kT0);
  const int b = pool.Add(Kernel(60, 2 * kMs), kT0);
  pool.AdvanceTo(kT0 + 5 * kMs);
  EXPECT_EQ(pool.kernel(a).end_ns, kT0 + 2 * kMs);
  EXPECT_EQ(pool.kernel(b).end_ns, kT0 + 2 * kMs);
}

TEST(SmPoolTest, KernelsWiderThanTheDeviceTogetherShareWhatIsLeft) {
  SmPoolState pool = Pool();
  // The first takes 80 SMs; the second gets the 20 left, a third of its
  // width, until the first ends at 1 ms; then all 60 for the rest.
  const int a = pool.Add(Kernel(80, 1 * kMs), kT0);
  const int b = pool.Add(Kernel(60, 1 * kMs), kT0);
  EXPECT_DOUBLE_EQ(pool.kernel(a).sms, 80);
  EXPECT_DOUBLE_EQ(pool.kernel(b).sms, 20);
  pool.AdvanceTo(kT0 + 5 * kMs);
  EXPECT_EQ(pool.kernel(a).end_ns, kT0 + 1 * kMs);
  // 1/3 of its work done by 1 ms; 2/3 at full width.
  EXPECT_NEAR(pool.kernel(b).end_ns, kT0 + 1 * kMs + 2 * kMs / 3, 2);
}

TEST(SmPoolTest, FreedSmsGoToTheHighestPriorityThenTheEarliest) {
  // A drain time longer than the test: nobody takes held SMs.
  SmPoolState pool = Pool(Share::kPriority, /*drain_ns=*/100 * kMs);
  const int running = pool.Add(Kernel(100, 1 * kMs), kT0);
  const int low = pool.Add(Kernel(100, 1 * kMs, /*rank=*/1), kT0);
  const int late_high = pool.Add(Kernel(100, 1 * kMs, /*rank=*/-1), kT0 + kMs / 2);
  pool.AdvanceTo(kT0 + 10 * kMs);
  EXPECT_EQ(pool.kernel(running).end_ns, kT0 + 1 * kMs);
  EXPECT_EQ(pool.kernel(late_high).end_ns, kT0 + 2 * kMs);
  EXPECT_EQ(pool.kernel(low).end_ns, kT0 + 3 * kMs);
}

TEST(SmPoolTest, AHigherPriorityKernelTakesHeldSmsAfterTheDrainTime) {
  SmPoolState pool = Pool(Share::kPriority, /*drain_ns=*/kMs / 10);
  const int low = pool.Add(Kernel(100, 10 * kMs, /*rank=*/1), kT0);
  pool.AdvanceTo(kT0 + kMs);
  const int high = pool.Add(Kernel(100, 1 * kMs, /*rank=*/-1), kT0 + kMs);
  EXPECT_DOUBLE_EQ(pool.kernel(high).sms, 0);  // The low kernel's blocks drain.
  pool.AdvanceTo(kT0 + kMs + kMs / 10);
  EXPECT_DOUBLE_EQ(pool.kernel(high).sms, 100);
  EXPECT_DOUBLE_EQ(pool.kernel(low).sms, 0);
  pool.AdvanceTo(kT0 + 20 * kMs);
  EXPECT_EQ(pool.kernel(high).end_ns, kT0 + 2 * kMs + kMs / 10);
  // Its 10 ms of work, with 1 ms off the SMs.
  EXPECT_EQ(pool.kernel(low).end_ns, kT0 + 11 * kMs);
  EXPECT_EQ(pool.kernel(low).preemptions, 1);
  EXPECT_EQ(pool.kernel(high).preemptions, 0);
}

TEST(SmPoolTest, ANewcomerOfEqualPriorityNeverTakesHeldSms) {
  SmPoolState pool = Pool(Share::kPriority, /*drain_ns=*/0);
  const int first = pool.Add(Kernel(100, 3 * kMs), kT0);
  const int second = pool.Add(Kernel(100, 1 * kMs), kT0 + kMs);
  pool.AdvanceTo(kT0 + 10 * kMs);
  EXPECT_EQ(pool.kernel(first).end_ns, kT0 + 3 * kMs);
  EXPECT_EQ(pool.kernel(second).end_ns, kT0 + 4 * kMs);
  EXPECT_EQ(pool.kernel(first).preemptions, 0);
}

TEST(SmPoolTest, APinnedKernelKeepsItsSmsUntilUnpinned) {
  SmPoolState pool = Pool(Share::kPriority, /*drain_ns=*/0);
  SmRequest pinned = Kernel(100, 0, /*rank=*/1);
  pinned.pinned = true;
  const int body = pool.Add(pinned, kT0);
  const int high = pool.Add(Kernel(100, 1 * kMs, /*rank=*/-1), kT0);
  pool.AdvanceTo(kT0 + 5 * kMs);
  EXPECT_DOUBLE_EQ(pool.kernel(body).sms, 100);
  EXPECT_EQ(pool.ProjectedEnd(body), SmPoolState::kNever);
  pool.Unpin(body, 0);
  pool.AdvanceTo(kT0 + 10 * kMs);
  EXPECT_EQ(pool.kernel(body).end_ns, kT0 + 5 * kMs);
  EXPECT_EQ(pool.kernel(high).end_ns, kT0 + 6 * kMs);
}

TEST(SmPoolTest, AKernelReadyLaterJoinsThen) {
  SmPoolState pool = Pool();
  const int k = pool.Add(Kernel(100, 1 * kMs), kT0 + 4 * kMs);
  pool.AdvanceTo(kT0);
  EXPECT_EQ(pool.kernel(k).state, SmKernel::State::kPending);
  EXPECT_EQ(pool.ProjectedEnd(k), kT0 + 4 * kMs);
  EXPECT_EQ(pool.Waiting(), 1);
  pool.AdvanceTo(kT0 + 10 * kMs);
  EXPECT_EQ(pool.kernel(k).end_ns, kT0 + 5 * kMs);
}

TEST(SmPoolTest, ADetachedKernelLeavesItsPlaceWhenItEnds) {
  SmPoolState pool = Pool();
  const int k = pool.Add(Kernel(100, 1 * kMs), kT0);
  pool.Detach(k);
  pool.AdvanceTo(kT0 + 2 * kMs);
  EXPECT_EQ(pool.kernel(k).state, SmKernel::State::kFree);
}

TEST(SmPoolTest, TimeslicedContextsAlternateOnlyWhileBothHaveWork) {
  SmPoolState pool = Pool(Share::kTimeslice, /*drain_ns=*/0, /*timeslice_ns=*/2 * kMs);
  // Context 1 alone for 3 ms (never switched out), then context 2 arrives.
  const int a = pool.Add(Kernel(100, 10 * kMs, 0, /*context=*/1), kT0);
  pool.AdvanceTo(kT0 + 3 * kMs);
  EXPECT_EQ(pool.switches(), 0);
  const int b = pool.Add(Kernel(10, 1 * kMs, 0, /*context=*/2), kT0 + 3 * kMs);
  // Though 90 SMs are free, b waits for context 1's slice to end at 4 ms.
  EXPECT_DOUBLE_EQ(pool.kernel(b).sms, 0);
  pool.AdvanceTo(kT0 + 4 * kMs);
  EXPECT_EQ(pool.switches(), 1);
  EXPECT_DOUBLE_EQ(pool.kernel(b).sms, 10);
  EXPECT_DOUBLE_EQ(pool.kernel(a).sms, 0);
  // b ends at 5 ms, well inside its slice: the device goes back at once.
  pool.AdvanceTo(kT0 + 5 * kMs);
  EXPECT_EQ(pool.kernel(b).end_ns, kT0 + 5 * kMs);
  EXPECT_DOUBLE_EQ(pool.kernel(a).sms, 100);
  pool.AdvanceTo(kT0 + 20 * kMs);
  EXPECT_EQ(pool.kernel(a).end_ns, kT0 + 11 * kMs);
}

TEST(SmPoolTest, TimeslicedALongKernelYieldsEverySliceAfterTheDrain) {
  SmPoolState pool = Pool(Share::kTimeslice, /*drain_ns=*/kMs / 10, /*timeslice_ns=*/kMs);
  const int a = pool.Add(Kernel(100, 4 * kMs, 0, 1), kT0);
  const int b = pool.Add(Kernel(100, 4 * kMs, 0, 2), kT0);
  pool.AdvanceTo(kT0 + 100 * kMs);
  // 1 ms slices, each followed by 0.1 ms in which the old context's blocks
  // drain (it keeps running): a runs [0, 1.1), b [1.1, 2.2), a [2.2, 3.3)
  // ... a ends at 7.3 ms in its fourth slice; b has the device from then.
  // No time is lost: the two end when their 8 ms of work are done.
  EXPECT_EQ(pool.switches(), 6);
  EXPECT_EQ(pool.kernel(a).end_ns, kT0 + 7 * kMs + 3 * kMs / 10);
  EXPECT_EQ(pool.kernel(b).end_ns, kT0 + 8 * kMs);
}

TEST(SmPoolTest, PriorityAcrossContextsIsOneOrder) {
  SmPoolState pool = Pool(Share::kPriority);
  const int a = pool.Add(Kernel(100, 1 * kMs, /*rank=*/1, /*context=*/1), kT0);
  const int b = pool.Add(Kernel(100, 1 * kMs, /*rank=*/-1, /*context=*/2), kT0);
  pool.AdvanceTo(kT0 + 5 * kMs);
  EXPECT_EQ(pool.kernel(b).end_ns, kT0 + 1 * kMs);
  EXPECT_EQ(pool.kernel(a).end_ns, kT0 + 2 * kMs);
}

TEST(SmPoolTest, MpsRunsContextsSideBySideEachWithinItsCap) {
  SmPoolState pool = Pool(Share::kMps);
  // Context 1 may hold 70 SMs, context 2 30: both full-width kernels run
  // at once, each at its cap's speed.
  const int a = pool.Add(Kernel(100, 7 * kMs, 0, /*context=*/1, /*cap=*/0.7), kT0);
  const int b = pool.Add(Kernel(100, 3 * kMs, 0, /*context=*/2, /*cap=*/0.3), kT0);
  EXPECT_DOUBLE_EQ(pool.kernel(a).sms, 70);
  EXPECT_DOUBLE_EQ(pool.kernel(b).sms, 30);
  pool.AdvanceTo(kT0 + 20 * kMs);
  EXPECT_EQ(pool.kernel(a).end_ns, kT0 + 10 * kMs);
  EXPECT_EQ(pool.kernel(b).end_ns, kT0 + 10 * kMs);
}

TEST(SmPoolTest, MpsOrdersByArrivalAcrossContextsAndPriorityWithinOne) {
  SmPoolState pool = Pool(Share::kMps);
  const int first = pool.Add(Kernel(100, 1 * kMs, /*rank=*/1, /*context=*/1), kT0);
  const int other = pool.Add(Kernel(100, 1 * kMs, /*rank=*/-1, /*context=*/2), kT0);
  const int own_high = pool.Add(Kernel(100, 1 * kMs, /*rank=*/-1, /*context=*/1), kT0);
  pool.AdvanceTo(kT0 + 10 * kMs);
  // Context 1's high kernel takes its context's first place, then its low
  // one; the other context's higher priority does not count across
  // contexts: it comes after context 1's earlier arrival.
  EXPECT_EQ(pool.kernel(own_high).end_ns, kT0 + 1 * kMs);
  EXPECT_EQ(pool.kernel(first).end_ns, kT0 + 2 * kMs);
  EXPECT_EQ(pool.kernel(other).end_ns, kT0 + 3 * kMs);
}

TEST(SmPoolTest, MpsClientPriorityLevelsComeBeforeArrival) {
  for (const int level : {0, 1}) {
    SmPoolState pool = Pool(Share::kMps, /*drain_ns=*/kMs / 10);
    // Context 1 fills the SMs first; context 2's kernel arrives 1 ms later.
    SmRequest first = Kernel(100, 10 * kMs, 0, /*context=*/1);
    first.client_priority = level;
    pool.Add(first, kT0);
    const int later = pool.Add(Kernel(100, 1 * kMs, 0, /*context=*/2), kT0 + kMs);
    pool.AdvanceTo(kT0 + 20 * kMs);
    if (level == 1) {
      // BELOW_NORMAL: the NORMAL client's kernel takes the SMs once the
      // running blocks have drained.
      EXPECT_EQ(pool.kernel(later).end_ns, kT0 + kMs + kMs / 10 + kMs);
    } else {
      // Both NORMAL: arrival order, so it waits for the first to end.
      EXPECT_EQ(pool.kernel(later).end_ns, kT0 + 10 * kMs + kMs);
    }
  }
}

TEST(SmPoolTest, AStreamsNextKernelTakesTheSmsItsPredecessorLeaves) {
  // A low-priority kernel runs beside a high-priority stream's kernels. The
  // SMs the high stream's kernel leaves go to its next kernel at once, not
  // to the low kernel, which would then hold them for a drain time: whether
  // the next kernel was waiting before (its thread ran ahead) or is added
  // at that very time (its thread came late).
  for (const bool late : {false, true}) {
    SmPoolState pool = Pool(Share::kPriority, /*drain_ns=*/kMs / 10);
    const int low = pool.Add(Kernel(100, 100 * kMs, /*rank=*/1), kT0);
    const int first = pool.Add(Kernel(60, 1 * kMs, /*rank=*/0), kT0);
    pool.AdvanceTo(kT0 + 2 * kMs / 10);  // Past the drain: first takes 60.
    ASSERT_DOUBLE_EQ(pool.kernel(first).sms, 60);
    ASSERT_DOUBLE_EQ(pool.kernel(low).sms, 40);
    int next = -1;
    if (!late) next = pool.Add(Kernel(60, 1 * kMs, /*rank=*/0), kT0 + kMs);
    pool.AdvanceTo(kT0 + kMs);
    ASSERT_TRUE(Done(pool, first));
    if (late) next = pool.Add(Kernel(60, 1 * kMs, /*rank=*/0), kT0 + kMs);
    EXPECT_DOUBLE_EQ(pool.kernel(next).sms, 60) << (late ? "added late" : "waiting");
    EXPECT_DOUBLE_EQ(pool.kernel(low).sms, 40);
    pool.AdvanceTo(kT0 + 5 * kMs);
    EXPECT_EQ(pool.kernel(next).end_ns, kT0 + 2 * kMs);
    EXPECT_EQ(pool.kernel(low).preemptions, 0);
  }
}

TEST(SmPoolTest, RunningEventsStopsTheClockAtTheLastOfThem) {
  SmPoolState pool = Pool(Share::kPriority, /*drain_ns=*/kMs / 10);
  const int first = pool.Add(Kernel(100, 1 * kMs), kT0);
  pool.RunEventsUntil(kT0 + 5 * kMs);
  EXPECT_TRUE(Done(pool, first));
  EXPECT_EQ(pool.clock_ns(), kT0 + kMs);
  // Nothing happened since: a kernel whose thread comes late still joins
  // when its stream's work before it ended.
  const int next = pool.Add(Kernel(100, 1 * kMs), kT0 + kMs);
  pool.AdvanceTo(kT0 + 5 * kMs);
  EXPECT_EQ(pool.kernel(next).end_ns, kT0 + 2 * kMs);
}

TEST(SmPoolTest, RemovingAProcessFreesItsSms) {
  SmPoolState pool = Pool();
  SmRequest dead = Kernel(100, 10 * kMs);
  dead.pid = 4242;
  pool.Add(dead, kT0);
  const int live = pool.Add(Kernel(100, 1 * kMs), kT0);
  pool.AdvanceTo(kT0 + kMs);
  EXPECT_DOUBLE_EQ(pool.kernel(live).sms, 0);
  pool.RemoveProcess(4242);
  EXPECT_DOUBLE_EQ(pool.kernel(live).sms, 100);
  pool.AdvanceTo(kT0 + 5 * kMs);
  EXPECT_EQ(pool.kernel(live).end_ns, kT0 + 2 * kMs);
}

TEST(SmPoolTest, OthersAreBusyWhileAKernelOfAContextThatDoesNotDeferIsThere) {
  SmPoolState pool = Pool(Share::kTimeslice);
  EXPECT_FALSE(pool.OthersBusy(2));
  SmRequest deferring = Kernel(100, 1 * kMs, 0, /*context=*/3);
  deferring.defers = true;
  pool.Add(deferring, kT0);
  EXPECT_FALSE(pool.OthersBusy(2));  // Deferring kernels do not count.
  const int guarantee = pool.Add(Kernel(100, 1 * kMs, 0, /*context=*/1), kT0 + kMs);
  EXPECT_TRUE(pool.OthersBusy(2));   // Pending counts.
  EXPECT_FALSE(pool.OthersBusy(1));  // Its own context does not.
  pool.AdvanceTo(kT0 + 10 * kMs);
  pool.Free(guarantee);
  EXPECT_FALSE(pool.OthersBusy(2));
  // It left the pool when it ended, after the deferring kernel's 1 ms.
  EXPECT_EQ(pool.OthersLastEnd(), kT0 + 2 * kMs);
}

SmRequest InPartition(SmRequest request, uint32_t partition, double fraction) {
  request.partition = partition;
  request.partition_fraction = fraction;
  return request;
}

TEST(SmPoolTest, AnSmPartitionsKernelsHoldItsShareTogetherAndLeaveTheRest) {
  SmPoolState pool = Pool();
  // Partition 7 has a quarter of the SMs: its two full-width kernels share
  // 25 between them; a kernel outside it, arriving last, takes the 75 left.
  const int a = pool.Add(InPartition(Kernel(100, 1 * kMs), 7, 0.25), kT0);
  const int b = pool.Add(InPartition(Kernel(100, 1 * kMs), 7, 0.25), kT0);
  const int outside = pool.Add(Kernel(100, 3 * kMs), kT0);
  EXPECT_DOUBLE_EQ(pool.kernel(a).sms + pool.kernel(b).sms, 25);
  EXPECT_DOUBLE_EQ(pool.kernel(outside).sms, 75);
  pool.AdvanceTo(kT0 + 20 * kMs);
  // The outside kernel's 3 ms on 75 SMs end at 4 ms; the partition's 2 ms
  // of full-width work on 25 SMs take 8 ms, the free SMs notwithstanding.
  EXPECT_EQ(pool.kernel(outside).end_ns, kT0 + 4 * kMs);
  EXPECT_EQ(std::max(pool.kernel(a).end_ns, pool.kernel(b).end_ns), kT0 + 8 * kMs);
}

TEST(SmPoolTest, AnSmPartitionLimitsItsKernelsInEverySharingMode) {
  for (Share share : {Share::kPriority, Share::kTimeslice, Share::kMps}) {
    SCOPED_TRACE(static_cast<int>(share));
    SmPoolState pool = Pool(share);
    const int k = pool.Add(InPartition(Kernel(100, 1 * kMs, 0, /*context=*/1), 3, 0.5), kT0);
    EXPECT_DOUBLE_EQ(pool.kernel(k).sms, 50);
    pool.AdvanceTo(kT0 + 5 * kMs);
    EXPECT_EQ(pool.kernel(k).end_ns, kT0 + 2 * kMs);
  }
}

TEST(SmPoolTest, PartitionsOfDifferentContextsAreDifferentPartitions) {
  SmPoolState pool = Pool(Share::kMps);
  const int a = pool.Add(InPartition(Kernel(100, 1 * kMs, 0, /*context=*/1), 1, 0.5), kT0);
  const int b = pool.Add(InPartition(Kernel(100, 1 * kMs, 0, /*context=*/2), 1, 0.5), kT0);
  EXPECT_DOUBLE_EQ(pool.kernel(a).sms, 50);
  EXPECT_DOUBLE_EQ(pool.kernel(b).sms, 50);
}

TEST(SmPoolTest, APartitionsNewestKernelCarriesItsShare) {
  SmPoolState pool = Pool();
  const int old = pool.Add(InPartition(Kernel(100, 10 * kMs), 5, 0.2), kT0);
  EXPECT_DOUBLE_EQ(pool.kernel(old).sms, 20);
  // The partition was resized to 60 %: the running kernel grows with it.
  pool.AdvanceTo(kT0 + kMs);
  const int next = pool.Add(InPartition(Kernel(10, 1 * kMs), 5, 0.6), kT0 + kMs);
  EXPECT_DOUBLE_EQ(pool.kernel(old).sms + pool.kernel(next).sms, 60);
  EXPECT_DOUBLE_EQ(pool.kernel(old).sms, 60);  // It came first: it is served first.
}

TEST(SmPoolTest, AFullPoolRefusesAKernel) {
  SmPoolState pool = Pool();
  for (int i = 0; i < SmPoolState::kMaxKernels; ++i) ASSERT_GE(pool.Add(Kernel(1, kMs), kT0), 0);
  EXPECT_EQ(pool.Add(Kernel(1, kMs), kT0), -1);
}

}  // namespace
}  // namespace minitf::se
