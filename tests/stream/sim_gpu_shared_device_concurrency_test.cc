// A SimGPU device shared through shared memory (sim_gpu_shared_device.h),
// seen from two attachments in one process, as two processes see it: one
// line for the engine (each attachment a context: timesliced, or by stream
// priority across attachments), one capacity for memory.
#include "stream/sim_gpu/sim_gpu_shared_device.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "platform/mutex.h"
#include "tests/testlib/sim_gpu_engine_testing.h"
#include "stream/sim_gpu/sim_gpu_engine.h"
#include "stream/sim_gpu/sim_gpu_memory.h"

namespace minitf::se {
namespace {

using absl::Milliseconds;

constexpr int64_t kCapacity = int64_t{1} << 20;

using testing::AwaitQueued;
using testing::BlockingKernel;
using testing::FinishOrder;
using testing::LaunchKernel;
using testing::NotifyingKernel;

// A shared device of this test's own, removed at the end.
class SharedDeviceTest : public ::testing::Test {
 protected:
  ~SharedDeviceTest() override { EXPECT_TRUE(RemoveSharedSimGPU(name_, 1).ok()); }

  std::unique_ptr<SharedSimGPUDevice> Attach(
      SharedSimGPUDevice::Sharing sharing = SharedSimGPUDevice::Sharing()) {
    absl::StatusOr<std::unique_ptr<SharedSimGPUDevice>> d =
        SharedSimGPUDevice::Attach(name_, 0, kCapacity, sharing);
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? *std::move(d) : nullptr;
  }

  const std::string name_ = testing::UniqueSharedSimGPUName("test");
};

constexpr SharedSimGPUDevice::Sharing kByPriority{
    .mode = SharedSimGPUDevice::Sharing::Mode::kPriority};

TEST_F(SharedDeviceTest, ByPriorityOneLineServesEveryAttachmentByPriorityThenArrival) {
  std::unique_ptr<SharedSimGPUDevice> a = Attach(kByPriority), b = Attach(kByPriority);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  SimGPUEngine engine_a(SimGPUOptions::Mode::kTiming, absl::Hours(1), a.get());
  SimGPUEngine engine_b(SimGPUOptions::Mode::kTiming, absl::Hours(1), b.get());
  FinishOrder finished;
  Notification started, release;
  const HostKernel blocker = BlockingKernel("blocker", &started, &release);
  std::vector<std::thread> threads;
  threads.push_back(
      LaunchKernel(&engine_a, blocker, absl::ZeroDuration(), StreamPriority::kLowest, &finished));
  started.WaitForNotification();
  const std::vector<std::pair<std::string, StreamPriority>> arrivals = {
      {"low1", StreamPriority::kLowest},
      {"default1", StreamPriority::kDefault},
      {"high1", StreamPriority::kHighest},
      {"low2", StreamPriority::kLowest},
      {"high2", StreamPriority::kHighest}};
  for (size_t i = 0; i < arrivals.size(); ++i) {
    // Alternately from either attachment.
    SimGPUEngine* engine = i % 2 == 0 ? &engine_b : &engine_a;
    threads.push_back(LaunchKernel(engine, NotifyingKernel(arrivals[i].first), Milliseconds(1),
                             arrivals[i].second, &finished));
    AwaitQueued(engine_a, static_cast<int>(i) + 1);
  }
  EXPECT_EQ(b->SmWaiting(), 5);
  release.Notify();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(finished.names(), (std::vector<std::string>{"blocker", "high1", "high2",
                                                        "default1", "low1", "low2"}));
  EXPECT_EQ(engine_a.KernelCount() + engine_b.KernelCount(), 6);
  EXPECT_EQ(a->SmWaiting(), 0);
}

TEST_F(SharedDeviceTest, ByPriorityAHigherPriorityKernelOfAnotherAttachmentPreemptsAHold) {
  std::unique_ptr<SharedSimGPUDevice> a = Attach(kByPriority), b = Attach(kByPriority);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  SimGPUEngine low_engine(SimGPUOptions::Mode::kTiming, Milliseconds(1), a.get());
  SimGPUEngine high_engine(SimGPUOptions::Mode::kTiming, Milliseconds(1), b.get());
  FinishOrder finished;
  Notification started;
  std::thread low = LaunchKernel(&low_engine, NotifyingKernel("low", &started), absl::Seconds(3),
                           StreamPriority::kLowest, &finished);
  started.WaitForNotification();
  std::thread high =
      LaunchKernel(&high_engine, NotifyingKernel("high"), Milliseconds(1), StreamPriority::kHighest, &finished);
  high.join();
  low.join();
  EXPECT_EQ(finished.names(), (std::vector<std::string>{"high", "low"}));
  EXPECT_EQ(low_engine.PreemptionCount(), 1);
  EXPECT_EQ(high_engine.PreemptionCount(), 0);
  EXPECT_EQ(low_engine.BusyTime(), absl::Seconds(3));
  EXPECT_EQ(high_engine.BusyTime(), Milliseconds(1));
}

// Timesliced (the default), a stream priority orders its own context's
// kernels only: the context whose slice it is keeps the engine for its
// waiting kernel, whatever the other context's priority.
TEST_F(SharedDeviceTest, TimeslicedPrioritiesOrderOnlyTheirOwnContextsKernels) {
  const SharedSimGPUDevice::Sharing long_slices{.timeslice = absl::Hours(1)};
  std::unique_ptr<SharedSimGPUDevice> a = Attach(long_slices), b = Attach(long_slices);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  SimGPUEngine engine_a(SimGPUOptions::Mode::kTiming, absl::ZeroDuration(), a.get());
  SimGPUEngine engine_b(SimGPUOptions::Mode::kTiming, absl::ZeroDuration(), b.get());
  FinishOrder finished;
  Notification started, release;
  std::vector<std::thread> threads;
  threads.push_back(LaunchKernel(&engine_a, BlockingKernel("a_blocker", &started, &release),
                                 absl::ZeroDuration(), StreamPriority::kLowest, &finished));
  started.WaitForNotification();
  threads.push_back(LaunchKernel(&engine_b, NotifyingKernel("b_high"), Milliseconds(1),
                                 StreamPriority::kHighest, &finished));
  AwaitQueued(engine_a, 1);
  threads.push_back(LaunchKernel(&engine_a, NotifyingKernel("a_low"), Milliseconds(1),
                                 StreamPriority::kLowest, &finished));
  AwaitQueued(engine_a, 2);
  release.Notify();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(finished.names(), (std::vector<std::string>{"a_blocker", "a_low", "b_high"}));
  EXPECT_EQ(engine_a.PreemptionCount(), 0);
  EXPECT_EQ(a->TimesliceSwitches(), 0);
}

// When a slice ends with another context waiting, the running kernel yields
// (after its drain) and the other context runs: a short kernel does not wait
// for a long one of another process to end, as on a time-sliced GPU.
TEST_F(SharedDeviceTest, TimeslicedALongKernelYieldsWhenItsSliceEnds) {
  const SharedSimGPUDevice::Sharing slices{.timeslice = Milliseconds(20)};
  std::unique_ptr<SharedSimGPUDevice> a = Attach(slices), b = Attach(slices);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  SimGPUEngine engine_a(SimGPUOptions::Mode::kTiming, Milliseconds(1), a.get());
  SimGPUEngine engine_b(SimGPUOptions::Mode::kTiming, Milliseconds(1), b.get());
  FinishOrder finished;
  Notification started;
  std::thread long_kernel = LaunchKernel(&engine_a, NotifyingKernel("a_long", &started),
                                         absl::Seconds(1), StreamPriority::kHighest, &finished);
  started.WaitForNotification();
  std::thread short_kernel = LaunchKernel(&engine_b, NotifyingKernel("b_short"), Milliseconds(1),
                                          StreamPriority::kLowest, &finished);
  short_kernel.join();
  long_kernel.join();
  EXPECT_EQ(finished.names(), (std::vector<std::string>{"b_short", "a_long"}));
  EXPECT_EQ(engine_a.PreemptionCount(), 1);
  EXPECT_GE(a->TimesliceSwitches(), 1);
  // Time spent switched out is not charged.
  EXPECT_EQ(engine_a.BusyTime(), absl::Seconds(1));
  EXPECT_EQ(engine_b.BusyTime(), Milliseconds(1));
}

// A context alone on the device keeps it, slice after slice.
TEST_F(SharedDeviceTest, TimeslicedAContextAloneIsNeverSwitchedOut) {
  const SharedSimGPUDevice::Sharing slices{.timeslice = Milliseconds(1)};
  std::unique_ptr<SharedSimGPUDevice> a = Attach(slices), b = Attach(slices);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  SimGPUEngine engine_a(SimGPUOptions::Mode::kTiming, absl::ZeroDuration(), a.get());
  for (int i = 0; i < 5; ++i) {
    absl::Duration charged;
    ASSERT_TRUE(engine_a.Execute(NotifyingKernel("k"), Milliseconds(4), StreamPriority::kDefault,
                                 &charged)
                    .ok());
  }
  EXPECT_EQ(engine_a.PreemptionCount(), 0);
  EXPECT_EQ(b->TimesliceSwitches(), 0);
  EXPECT_EQ(engine_a.BusyTime(), Milliseconds(20));
}

// A deferring attachment's kernel waits to join the device while another
// attachment's kernel is there, even one that leaves most SMs free; with
// the device idle it runs.
TEST_F(SharedDeviceTest, ADeferringAttachmentsKernelWaitsForTheOthersWork) {
  const SharedSimGPUDevice::Sharing mps{.mode = SharedSimGPUDevice::Sharing::Mode::kMps};
  std::unique_ptr<SharedSimGPUDevice> guarantee = Attach(mps), opportunistic = Attach(mps);
  ASSERT_NE(guarantee, nullptr);
  ASSERT_NE(opportunistic, nullptr);
  opportunistic->SetDefers(true);
  SimGPUEngine engine_g(SimGPUOptions::Mode::kTiming, absl::ZeroDuration(), guarantee.get());
  SimGPUEngine engine_o(SimGPUOptions::Mode::kTiming, absl::ZeroDuration(), opportunistic.get());
  FinishOrder finished;
  Notification started;
  // The guarantee kernel is narrow (a block): side by side the other would
  // end first.
  HostKernel narrow = NotifyingKernel("guarantee", &started);
  narrow.cost.blocks = 1;
  std::thread g = LaunchKernel(&engine_g, narrow, Milliseconds(200), StreamPriority::kDefault,
                               &finished);
  started.WaitForNotification();
  std::thread o = LaunchKernel(&engine_o, NotifyingKernel("opportunistic"), Milliseconds(1),
                               StreamPriority::kDefault, &finished);
  g.join();
  o.join();
  EXPECT_EQ(finished.names(), (std::vector<std::string>{"guarantee", "opportunistic"}));
  // With the device idle it joins (it would wait forever otherwise).
  absl::Duration charged;
  ASSERT_TRUE(engine_o.Execute(NotifyingKernel("alone"), Milliseconds(1),
                               StreamPriority::kDefault, &charged)
                  .ok());
  EXPECT_EQ(charged, Milliseconds(1));
}

// MPS clients at two priority levels (CUDA_MPS_CLIENT_PRIORITY): a NORMAL
// client's kernel that arrives while a BELOW_NORMAL client's kernel fills
// the SMs takes them once that kernel's blocks drain; it does not wait for
// its end, as it would for a client of its own level that came first.
TEST_F(SharedDeviceTest, AnMpsClientBelowNormalLeavesTheSmsToANormalOne) {
  const SharedSimGPUDevice::Sharing mps{.mode = SharedSimGPUDevice::Sharing::Mode::kMps,
                                        .drain = Milliseconds(1)};
  std::unique_ptr<SharedSimGPUDevice> normal = Attach(mps), below = Attach(mps);
  ASSERT_NE(normal, nullptr);
  ASSERT_NE(below, nullptr);
  below->SetClientPriority(1);
  SimGPUEngine engine_n(SimGPUOptions::Mode::kTiming, absl::ZeroDuration(), normal.get());
  SimGPUEngine engine_b(SimGPUOptions::Mode::kTiming, absl::ZeroDuration(), below.get());
  FinishOrder finished;
  Notification started;
  std::thread b = LaunchKernel(&engine_b, NotifyingKernel("below_normal", &started),
                               Milliseconds(300), StreamPriority::kDefault, &finished);
  started.WaitForNotification();
  std::thread n = LaunchKernel(&engine_n, NotifyingKernel("normal"), Milliseconds(5),
                               StreamPriority::kDefault, &finished);
  n.join();
  b.join();
  EXPECT_EQ(finished.names(), (std::vector<std::string>{"normal", "below_normal"}));
}

TEST_F(SharedDeviceTest, BodiesOfTwoAttachmentsNeverRunTogether) {
  std::unique_ptr<SharedSimGPUDevice> a = Attach(), b = Attach();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  SimGPUEngine engine_a(SimGPUOptions::Mode::kCompute, absl::ZeroDuration(), a.get());
  SimGPUEngine engine_b(SimGPUOptions::Mode::kCompute, absl::ZeroDuration(), b.get());
  std::atomic<bool> inside{false};
  std::atomic<int> overlaps{0};
  HostKernel k;
  k.name = "k";
  k.body = [&] {
    if (inside.exchange(true)) ++overlaps;
    absl::SleepFor(Milliseconds(1));
    inside = false;
    return absl::OkStatus();
  };
  std::vector<std::thread> threads;
  for (SimGPUEngine* engine : {&engine_a, &engine_b, &engine_a, &engine_b}) {
    threads.emplace_back([engine, &k] {
      for (int i = 0; i < 20; ++i) {
        absl::Duration charged;
        EXPECT_TRUE(engine->Execute(k, absl::ZeroDuration(), StreamPriority::kDefault, &charged)
                        .ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(engine_a.KernelCount(), 40);
  EXPECT_EQ(engine_b.KernelCount(), 40);
}

TEST_F(SharedDeviceTest, TwoMemoriesShareOneCapacity) {
  std::unique_ptr<SharedSimGPUDevice> a = Attach(), b = Attach();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  SimGPUMemory memory_a(kCapacity, "SimGPU:0 (a)", /*strict=*/true, a.get());
  SimGPUMemory memory_b(kCapacity, "SimGPU:0 (b)", /*strict=*/true, b.get());
  void* big = memory_a.Allocate(kCapacity * 3 / 4);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(memory_b.Allocate(kCapacity / 2), nullptr);
  EXPECT_EQ(memory_b.DeviceBytesInUse(), kCapacity * 3 / 4);
  EXPECT_EQ(memory_b.BytesInUse(), 0);
  memory_a.Deallocate(big);
  void* half = memory_b.Allocate(kCapacity / 2);
  EXPECT_NE(half, nullptr);
  memory_b.Deallocate(half);
  EXPECT_EQ(a->BytesInUse(), 0);
}

TEST_F(SharedDeviceTest, ConcurrentAllocationsNeverExceedTheCapacity) {
  std::unique_ptr<SharedSimGPUDevice> a = Attach(), b = Attach();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  SimGPUMemory memory_a(kCapacity, "SimGPU:0 (a)", /*strict=*/false, a.get());
  SimGPUMemory memory_b(kCapacity, "SimGPU:0 (b)", /*strict=*/false, b.get());
  std::atomic<int> live{0};
  std::atomic<int> both{0};
  std::vector<std::thread> threads;
  for (SimGPUMemory* memory : {&memory_a, &memory_b, &memory_a, &memory_b}) {
    threads.emplace_back([memory, &live, &both] {
      for (int i = 0; i < 200; ++i) {
        void* p = memory->Allocate(kCapacity / 2 + 256);  // Two never fit.
        if (p == nullptr) continue;
        if (live.fetch_add(1) != 0) ++both;
        live.fetch_sub(1);
        memory->Deallocate(p);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(both.load(), 0);
  EXPECT_EQ(a->BytesInUse(), 0);
}

}  // namespace
}  // namespace minitf::se
