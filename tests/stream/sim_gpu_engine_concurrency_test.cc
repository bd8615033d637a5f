// SimGPUEngine's order of service: stream priorities, arrival order among
// equals, and preemption of a running kernel's hold by a higher-priority
// kernel (after the drain time), which then resumes ahead of later kernels
// of its own priority.
#include "stream/sim_gpu/sim_gpu_engine.h"

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "platform/mutex.h"
#include "stream/sm_partition.h"
#include "tests/testlib/sim_gpu_engine_testing.h"

namespace minitf::se {
namespace {

using absl::Milliseconds;

using testing::AwaitQueued;
using testing::BlockingKernel;
using testing::FinishOrder;
using testing::LaunchKernel;

HostKernel Kernel(const std::string& name, Notification* started = nullptr) {
  return testing::NotifyingKernel(name, started);
}

TEST(SimGPUEngineTest, FreeEngineGoesToTheHighestPriorityThenTheEarliest) {
  // Preemption never happens here: the blocker's body holds the engine, and
  // a running body is never preempted.
  SimGPUEngine engine(SimGPUOptions::Mode::kTiming, absl::Hours(1));
  FinishOrder finished;
  Notification started, release;
  const HostKernel blocker = BlockingKernel("blocker", &started, &release);
  std::vector<std::thread> threads;
  threads.push_back(LaunchKernel(&engine, blocker, absl::ZeroDuration(), StreamPriority::kLowest,
                           &finished));
  started.WaitForNotification();
  const std::vector<std::pair<std::string, StreamPriority>> arrivals = {
      {"low1", StreamPriority::kLowest},
      {"default1", StreamPriority::kDefault},
      {"high1", StreamPriority::kHighest},
      {"low2", StreamPriority::kLowest},
      {"high2", StreamPriority::kHighest}};
  for (size_t i = 0; i < arrivals.size(); ++i) {
    threads.push_back(LaunchKernel(&engine, Kernel(arrivals[i].first), Milliseconds(1),
                             arrivals[i].second, &finished));
    AwaitQueued(engine, static_cast<int>(i) + 1);
  }
  release.Notify();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(finished.names(), (std::vector<std::string>{"blocker", "high1", "high2",
                                                        "default1", "low1", "low2"}));
  EXPECT_EQ(engine.PreemptionCount(), 0);
  EXPECT_EQ(engine.KernelCount(), 6);
  EXPECT_GE(engine.BusyTime(), Milliseconds(5));  // 5 x 1 ms and the blocker's body.
}

TEST(SimGPUEngineTest, AKernelInAnSmPartitionRunsAtThePartitionsShareOfItsSpeed) {
  // Timing mode, one kernel filling the device: on half of the SMs its
  // 20 ms of modeled work end 40 ms after it was ready on the device's
  // clock; after the partition grows to the whole device, 20 ms again.
  SimGPUEngine engine(SimGPUOptions::Mode::kTiming, absl::ZeroDuration());
  SmPartition partition(0.5);
  HostKernel kernel;
  kernel.name = "wide";
  absl::Duration charged;
  absl::Time end;
  // Whole nanoseconds: the SM model's clock.
  const auto now = [] { return absl::FromUnixNanos(absl::ToUnixNanos(absl::Now())); };
  absl::Time ready = now();
  ASSERT_TRUE(
      engine.Execute(kernel, Milliseconds(20), StreamPriority::kDefault, ready, &charged, &end,
                     &partition)
          .ok());
  EXPECT_EQ(end - ready, Milliseconds(40));
  EXPECT_EQ(charged, Milliseconds(20));  // Its work, not its wait for SMs.
  partition.set_fraction(1);
  ready = std::max(end, now());
  ASSERT_TRUE(
      engine.Execute(kernel, Milliseconds(20), StreamPriority::kDefault, ready, &charged, &end,
                     &partition)
          .ok());
  EXPECT_EQ(end - ready, Milliseconds(20));
}

TEST(SimGPUEngineTest, HigherPriorityKernelPreemptsARunningHold) {
  SimGPUEngine engine(SimGPUOptions::Mode::kTiming, Milliseconds(1));
  FinishOrder finished;
  Notification started;
  absl::Duration low_charged, high_charged;
  // The low kernel holds the engine for 3 s; the high one needs 1 ms.
  std::thread low = LaunchKernel(&engine, Kernel("low", &started), absl::Seconds(3),
                           StreamPriority::kLowest, &finished, &low_charged);
  started.WaitForNotification();
  std::thread high = LaunchKernel(&engine, Kernel("high"), Milliseconds(1), StreamPriority::kHighest,
                            &finished, &high_charged);
  high.join();
  low.join();
  EXPECT_EQ(finished.names(), (std::vector<std::string>{"high", "low"}));
  EXPECT_EQ(engine.PreemptionCount(), 1);
  // Each is charged its modeled time, the preempted one not its wait.
  EXPECT_EQ(high_charged, Milliseconds(1));
  EXPECT_EQ(low_charged, absl::Seconds(3));
  EXPECT_EQ(engine.BusyTime(), absl::Seconds(3) + Milliseconds(1));
}

TEST(SimGPUEngineTest, PreemptedKernelResumesBeforeLaterKernelsOfItsPriority) {
  SimGPUEngine engine(SimGPUOptions::Mode::kTiming, absl::ZeroDuration());
  FinishOrder finished;
  Notification started;
  std::thread low1 = LaunchKernel(&engine, Kernel("low1", &started), absl::Seconds(2),
                            StreamPriority::kLowest, &finished);
  started.WaitForNotification();
  std::thread low2 =
      LaunchKernel(&engine, Kernel("low2"), Milliseconds(1), StreamPriority::kLowest, &finished);
  AwaitQueued(engine, 1);
  std::thread high =
      LaunchKernel(&engine, Kernel("high"), Milliseconds(1), StreamPriority::kHighest, &finished);
  for (std::thread* t : {&low1, &low2, &high}) t->join();
  EXPECT_EQ(finished.names(), (std::vector<std::string>{"high", "low1", "low2"}));
  EXPECT_EQ(engine.PreemptionCount(), 1);
}

TEST(SimGPUEngineTest, KernelsOfOnePriorityRunInArrivalOrderWithoutPreemption) {
  SimGPUEngine engine(SimGPUOptions::Mode::kTiming, absl::ZeroDuration());
  FinishOrder finished;
  Notification started;
  std::thread first = LaunchKernel(&engine, Kernel("first", &started), Milliseconds(300),
                             StreamPriority::kDefault, &finished);
  started.WaitForNotification();
  std::thread second =
      LaunchKernel(&engine, Kernel("second", nullptr), Milliseconds(1), StreamPriority::kDefault,
             &finished);
  first.join();
  second.join();
  EXPECT_EQ(finished.names(), (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(engine.PreemptionCount(), 0);
}

// A kernel ready a little later (its stream's previous kernel ends then on
// the device's clock) begins then and ends its modeled time later, even
// when its thread gets back before it has begun.
TEST(SimGPUEngineTest, AKernelReadyLaterEndsItsModeledTimeAfterItBegins) {
  SimGPUEngine engine(SimGPUOptions::Mode::kTiming, absl::ZeroDuration());
  const absl::Time ready = absl::Now() + absl::Microseconds(20);
  absl::Duration charged;
  absl::Time held_until;
  ASSERT_TRUE(engine.Execute(Kernel("later"), Milliseconds(10), StreamPriority::kDefault, ready,
                             &charged, &held_until)
                  .ok());
  EXPECT_EQ(held_until, ready + Milliseconds(10));
  EXPECT_EQ(charged, Milliseconds(10));
}

}  // namespace
}  // namespace minitf::se
