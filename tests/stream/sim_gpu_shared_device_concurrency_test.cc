// A SimGPU device shared through shared memory (sim_gpu_shared_device.h),
// seen from two attachments in one process, as two processes see it: one
// line for the engine (priorities, arrival order, preemption across
// attachments), one capacity for memory.
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

  std::unique_ptr<SharedSimGPUDevice> Attach() {
    absl::StatusOr<std::unique_ptr<SharedSimGPUDevice>> d =
        SharedSimGPUDevice::Attach(name_, 0, kCapacity);
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? *std::move(d) : nullptr;
  }

  const std::string name_ = testing::UniqueSharedSimGPUName("test");
};

TEST_F(SharedDeviceTest, OneLineServesEveryAttachmentByPriorityThenArrival) {
  std::unique_ptr<SharedSimGPUDevice> a = Attach(), b = Attach();
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
  EXPECT_EQ(b->Waiting(), 5);
  release.Notify();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(finished.names(), (std::vector<std::string>{"blocker", "high1", "high2",
                                                        "default1", "low1", "low2"}));
  EXPECT_EQ(engine_a.KernelCount() + engine_b.KernelCount(), 6);
  EXPECT_EQ(a->Waiting(), 0);
}

TEST_F(SharedDeviceTest, AHigherPriorityKernelOfAnotherAttachmentPreemptsAHold) {
  std::unique_ptr<SharedSimGPUDevice> a = Attach(), b = Attach();
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
