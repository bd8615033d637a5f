// HostMemoryBudget: what the process's allocators may hold together, the
// process's limit less a margin; reservations past it are refused and what
// is released can be reserved again, from many threads at once. And the
// host sub-allocator and SimGPU's device memory both take from the
// process's budget.
#include "platform/host_memory.h"

#include <cstdint>
#include <thread>
#include <vector>

#include "allocator/sub_allocator.h"
#include "gtest/gtest.h"
#include "stream/sim_gpu/sim_gpu_memory.h"

namespace minitf {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

TEST(HostMemoryBudgetTest, LeavesAnEighthOrAtLeast256MiBForTheRestOfTheProcess) {
  EXPECT_EQ(HostMemoryBudget::LimitFor(0), 0);  // unknown: unlimited
  EXPECT_EQ(HostMemoryBudget::LimitFor(3 * kGiB), 3 * kGiB - 3 * kGiB / 8);
  EXPECT_EQ(HostMemoryBudget::LimitFor(24 * kGiB), 21 * kGiB);
  EXPECT_EQ(HostMemoryBudget::LimitFor(1 * kGiB), 1 * kGiB - 256 * kMiB);
  // Less than the margin: an eighth still.
  EXPECT_EQ(HostMemoryBudget::LimitFor(128 * kMiB), 16 * kMiB);
}

TEST(HostMemoryBudgetTest, RefusesPastTheLimitAndTakesBackWhatIsReleased) {
  HostMemoryBudget budget(100);
  EXPECT_TRUE(budget.TryReserve(60));
  EXPECT_FALSE(budget.TryReserve(41));
  EXPECT_TRUE(budget.TryReserve(40));
  EXPECT_EQ(budget.reserved(), 100);
  EXPECT_FALSE(budget.TryReserve(1));
  budget.Release(60);
  EXPECT_TRUE(budget.TryReserve(60));
  EXPECT_FALSE(budget.TryReserve(int64_t{1} << 62));  // no overflow
  HostMemoryBudget unlimited(0);
  EXPECT_TRUE(unlimited.TryReserve(int64_t{1} << 50));
}

TEST(HostMemoryBudgetTest, ThreadsReservingTogetherNeverPassTheLimit) {
  HostMemoryBudget budget(1000);
  std::vector<std::thread> threads;
  std::vector<int> taken(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&budget, &taken, t] {
      for (int i = 0; i < 10000; ++i) {
        if (budget.TryReserve(7)) {
          ++taken[t];
          if (i % 3 == 0) {
            budget.Release(7);
            --taken[t];
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  int total = 0;
  for (int n : taken) total += n;
  EXPECT_EQ(budget.reserved(), 7 * total);
  EXPECT_LE(budget.reserved(), 1000);
  EXPECT_GT(budget.reserved(), 1000 - 7 * 4);
}

// The process's budget is shared by the host tensors' blocks and SimGPU's
// device memory: what one holds, the other cannot have.
TEST(HostMemoryBudgetTest, HostBlocksAndSimGpuMemoryTakeFromTheProcessBudget) {
  HostMemoryBudget& process = HostMemoryBudget::Process();
  ASSERT_GT(process.limit(), 0);
  const int64_t before = process.reserved();
  HostSubAllocator host;
  size_t received = 0;
  void* block = host.Alloc(64, 8 * kMiB, &received);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(process.reserved(), before + static_cast<int64_t>(received));
  se::SimGPUMemory device(64 * kMiB, "SimGPU:0", /*strict=*/false);
  void* on_device = device.Allocate(16 * kMiB);
  ASSERT_NE(on_device, nullptr);
  EXPECT_EQ(process.reserved(), before + static_cast<int64_t>(received) + 16 * kMiB);
  device.Deallocate(on_device);
  host.Free(block, received);
  EXPECT_EQ(process.reserved(), before);
  // More than the budget: refused by both, nothing left taken.
  EXPECT_EQ(host.Alloc(64, static_cast<size_t>(process.limit()) + 4096, &received), nullptr);
  se::SimGPUMemory huge(process.limit() + 64 * kMiB, "SimGPU:1", /*strict=*/false);
  EXPECT_EQ(huge.Allocate(static_cast<uint64_t>(process.limit()) + 4096), nullptr);
  EXPECT_EQ(process.reserved(), before);
}

}  // namespace
}  // namespace minitf
