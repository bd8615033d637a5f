// SimGPU device memory: strict capacity shared by every user of a device,
// coalescing, alignment, IsDeviceMemory.
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "stream/sim_gpu/sim_gpu_memory.h"
#include "stream/sim_gpu/sim_gpu_platform.h"
#include "stream/stream.h"

namespace minitf::se {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

std::unique_ptr<SimGPUPlatform> MakePlatform(const char* options) {
  return *SimGPUPlatform::Create(*ParseSimGPUOptions(options));
}

TEST(SimGPUMemoryTest, AllocationsPastCapacityFailCleanlyAndFreeingMakesRoom) {
  auto platform = MakePlatform("memory=64MiB,mode=functional");
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  DeviceMemoryBase a = gpu->Allocate(40 * kMiB);
  ASSERT_FALSE(a.is_null());
  EXPECT_TRUE(gpu->Allocate(30 * kMiB).is_null());
  EXPECT_TRUE(gpu->Allocate(65 * kMiB).is_null());
  EXPECT_TRUE(gpu->Allocate(uint64_t{1} << 62).is_null());
  EXPECT_EQ(gpu->DeviceMemoryInUse(), static_cast<int64_t>(40 * kMiB));
  gpu->Deallocate(&a);
  EXPECT_EQ(gpu->DeviceMemoryInUse(), 0);
  DeviceMemoryBase b = gpu->Allocate(30 * kMiB);
  EXPECT_FALSE(b.is_null());
  gpu->Deallocate(&b);
  DeviceMemoryBase all = gpu->Allocate(64 * kMiB);
  EXPECT_FALSE(all.is_null());
  EXPECT_TRUE(gpu->Allocate(1).is_null());
  gpu->Deallocate(&all);
}

TEST(SimGPUMemoryTest, FreedNeighboursCoalesce) {
  auto platform = MakePlatform("memory=64MiB,mode=functional");
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  std::vector<DeviceMemoryBase> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(gpu->Allocate(16 * kMiB));
  for (const auto& b : blocks) ASSERT_FALSE(b.is_null());
  EXPECT_TRUE(gpu->Allocate(256).is_null());
  gpu->Deallocate(&blocks[2]);
  gpu->Deallocate(&blocks[1]);
  DeviceMemoryBase big = gpu->Allocate(32 * kMiB);
  ASSERT_FALSE(big.is_null());
  EXPECT_EQ(big.opaque(), static_cast<char*>(blocks[0].opaque()) + 16 * kMiB);
  gpu->Deallocate(&big);
  gpu->Deallocate(&blocks[0]);
  gpu->Deallocate(&blocks[3]);
  DeviceMemoryBase whole = gpu->Allocate(64 * kMiB);
  EXPECT_FALSE(whole.is_null());
  gpu->Deallocate(&whole);
}

TEST(SimGPUMemoryTest, AllocationsAre256ByteAlignedAndCountRounded) {
  SimGPUMemory memory(1 * kMiB, "test");
  void* a = memory.Allocate(1);
  void* b = memory.Allocate(257);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 256, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 256, 0u);
  EXPECT_EQ(memory.BytesInUse(), 256 + 512);
  memory.Deallocate(a);
  memory.Deallocate(b);
  EXPECT_EQ(memory.BytesInUse(), 0);
  EXPECT_EQ(memory.Allocate(0), nullptr);
}

TEST(SimGPUMemoryTest, TwoUsersOfOneDeviceShareOneCapacity) {
  // Two spellings of the same options name the same process-wide platform,
  // so two sessions configured this way get the same executor.
  SimGPUPlatform* p1 = *GetSimGPUPlatform("memory=64MiB,mode=functional,count=1");
  SimGPUPlatform* p2 = *GetSimGPUPlatform(" count=1, mode=functional, memory=65536KiB ");
  ASSERT_EQ(p1, p2);
  StreamExecutor* user1 = *p1->ExecutorForDevice(0);
  StreamExecutor* user2 = *p2->ExecutorForDevice(0);
  ASSERT_EQ(user1, user2);

  DeviceMemoryBase a = user1->Allocate(48 * kMiB);
  ASSERT_FALSE(a.is_null());
  EXPECT_TRUE(user2->Allocate(32 * kMiB).is_null());
  DeviceMemoryBase b = user2->Allocate(16 * kMiB);
  EXPECT_FALSE(b.is_null());
  EXPECT_EQ(user1->DeviceMemoryInUse(), static_cast<int64_t>(64 * kMiB));
  user1->Deallocate(&a);
  DeviceMemoryBase c = user2->Allocate(32 * kMiB);
  EXPECT_FALSE(c.is_null());
  user2->Deallocate(&b);
  user2->Deallocate(&c);

  // Two threads allocating from it at once never exceed the capacity.
  std::vector<std::thread> threads;
  std::vector<std::vector<DeviceMemoryBase>> held(2);
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      StreamExecutor* gpu = t == 0 ? user1 : user2;
      for (int i = 0; i < 10; ++i) {
        DeviceMemoryBase m = gpu->Allocate(8 * kMiB);
        if (!m.is_null()) held[t].push_back(m);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(held[0].size() + held[1].size(), 8u);
  for (auto& list : held) {
    for (auto& m : list) user1->Deallocate(&m);
  }
  EXPECT_EQ(user1->DeviceMemoryInUse(), 0);
}

TEST(SimGPUMemoryTest, DifferentOptionsAreDifferentDevices) {
  SimGPUPlatform* p1 = *GetSimGPUPlatform("memory=64MiB,mode=functional");
  SimGPUPlatform* p2 = *GetSimGPUPlatform("memory=32MiB,mode=functional");
  EXPECT_NE(p1, p2);
  EXPECT_EQ(p2->options().memory_bytes, static_cast<int64_t>(32 * kMiB));
}

TEST(SimGPUMemoryTest, IsDeviceMemoryMeansInsideTheReservation) {
  auto platform = MakePlatform("memory=1MiB,mode=functional");
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  int on_stack = 0;
  EXPECT_FALSE(gpu->IsDeviceMemory(&on_stack));
  DeviceMemoryBase a = gpu->Allocate(1000);
  ASSERT_FALSE(a.is_null());
  char* base = static_cast<char*>(a.opaque());
  EXPECT_TRUE(gpu->IsDeviceMemory(base));
  EXPECT_TRUE(gpu->IsDeviceMemory(base + kMiB - 1));
  EXPECT_FALSE(gpu->IsDeviceMemory(base + kMiB));
  EXPECT_FALSE(gpu->IsDeviceMemory(&on_stack));
  void* pinned = gpu->HostMemoryAllocate(64);
  EXPECT_FALSE(gpu->IsDeviceMemory(pinned));
  gpu->HostMemoryDeallocate(pinned, 64);
  gpu->Deallocate(&a);
}

TEST(SimGPUMemoryTest, FreedMemoryCanBeWrittenAgain) {
  auto platform = MakePlatform("memory=8MiB,mode=functional");
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  for (int round = 0; round < 3; ++round) {
    DeviceMemoryBase a = gpu->Allocate(8 * kMiB);
    ASSERT_FALSE(a.is_null());
    std::vector<char> data(8 * kMiB, static_cast<char>(round + 1));
    ASSERT_TRUE(gpu->SynchronousMemcpyH2D(data.data(), data.size(), &a).ok());
    std::vector<char> back(8 * kMiB);
    ASSERT_TRUE(gpu->SynchronousMemcpyD2H(a, back.size(), back.data()).ok());
    EXPECT_EQ(back, data);
    gpu->Deallocate(&a);
  }
}

}  // namespace
}  // namespace minitf::se
