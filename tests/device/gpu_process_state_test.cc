// GPUProcessState: the memory limit rules, one shared allocator stack per
// device, private stacks that each keep their own limit over one device's
// capacity, VMem spilling past the device limit to pinned host memory, and
// replacing the process default. Devices come from private SimGPU platform
// instances, so no test sees another's memory.
#include "device/gpu/gpu_process_state.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platform/host_memory.h"
#include "stream/sim_gpu/sim_gpu_platform.h"
#include "tests/testlib/test_files.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

// A failing allocation returns at once instead of waiting for frees.
constexpr AllocationAttributes kNoRetry = {.no_retry_on_failure = true};

std::unique_ptr<se::SimGPUPlatform> MakePlatform(const std::string& options) {
  absl::StatusOr<se::SimGPUOptions> parsed = se::ParseSimGPUOptions(options);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<std::unique_ptr<se::SimGPUPlatform>> platform =
      se::SimGPUPlatform::Create(*parsed);
  EXPECT_TRUE(platform.ok()) << platform.status();
  return *std::move(platform);
}

se::StreamExecutor* ExecutorOf(se::SimGPUPlatform* platform, int ordinal) {
  absl::StatusOr<se::StreamExecutor*> executor = platform->ExecutorForDevice(ordinal);
  EXPECT_TRUE(executor.ok()) << executor.status();
  return *executor;
}

GPUOptions Limit(int64_t bytes) {
  GPUOptions options;
  options.memory_limit_bytes = bytes;
  options.host_memory_limit_mb = 256;
  return options;
}

// ---------------------------------------------------------------------------
// MemoryLimit.

TEST(GPUProcessStateTest, ExplicitLimitWinsOverTheFraction) {
  GPUOptions options;
  options.memory_limit_bytes = 100 * kMiB;
  options.per_process_gpu_memory_fraction = 0.5;
  absl::StatusOr<int64_t> limit = GPUProcessState::MemoryLimit(options, kGiB);
  ASSERT_TRUE(limit.ok()) << limit.status();
  EXPECT_EQ(*limit, 100 * kMiB);
}

TEST(GPUProcessStateTest, FractionIsTakenOfTheDeviceMemory) {
  GPUOptions options;
  options.per_process_gpu_memory_fraction = 0.25;
  EXPECT_EQ(*GPUProcessState::MemoryLimit(options, kGiB), 256 * kMiB);
  options.per_process_gpu_memory_fraction = 1.0;
  EXPECT_EQ(*GPUProcessState::MemoryLimit(options, kGiB), kGiB);
}

TEST(GPUProcessStateTest, DefaultLimitKeepsBackTheSmallerOf256MiBAndATenth) {
  const GPUOptions defaults;
  EXPECT_EQ(*GPUProcessState::MemoryLimit(defaults, 16 * kGiB), 16 * kGiB - 256 * kMiB);
  EXPECT_EQ(*GPUProcessState::MemoryLimit(defaults, 4 * kGiB), 4 * kGiB - 256 * kMiB);
  EXPECT_EQ(*GPUProcessState::MemoryLimit(defaults, kGiB), kGiB - kGiB / 10);
  EXPECT_EQ(*GPUProcessState::MemoryLimit(defaults, 64 * kMiB), 64 * kMiB - 64 * kMiB / 10);
}

TEST(GPUProcessStateTest, ExplicitLimitAboveTheDeviceIsAnErrorNamingBothSizes) {
  EXPECT_EQ(*GPUProcessState::MemoryLimit(Limit(kGiB), kGiB), kGiB);  // Equal is fine.
  absl::StatusOr<int64_t> limit = GPUProcessState::MemoryLimit(Limit(kGiB + 1), kGiB);
  ASSERT_EQ(limit.status().code(), absl::StatusCode::kInvalidArgument) << limit.status();
  EXPECT_THAT(std::string(limit.status().message()), HasSubstr(std::to_string(kGiB + 1)));
  EXPECT_THAT(std::string(limit.status().message()), HasSubstr(std::to_string(kGiB)));

  // Building a stack names the device too.
  auto platform = MakePlatform("memory=64MiB,mode=functional");
  absl::StatusOr<std::unique_ptr<GPUAllocatorStack>> stack =
      GPUProcessState::CreateStack(ExecutorOf(platform.get(), 0), Limit(65 * kMiB));
  ASSERT_EQ(stack.status().code(), absl::StatusCode::kInvalidArgument) << stack.status();
  EXPECT_THAT(std::string(stack.status().message()), HasSubstr("SimGPU device 0"));
  EXPECT_THAT(std::string(stack.status().message()), HasSubstr(std::to_string(65 * kMiB)));
}

// ---------------------------------------------------------------------------
// Stacks.

TEST(GPUProcessStateTest, StackIsBuiltWithTheLimitsOfItsOptions) {
  auto platform = MakePlatform("memory=64MiB,mode=functional");
  GPUOptions options = Limit(48 * kMiB);
  options.host_memory_limit_mb = 100;
  absl::StatusOr<std::unique_ptr<GPUAllocatorStack>> stack =
      GPUProcessState::CreateStack(ExecutorOf(platform.get(), 0), options);
  ASSERT_TRUE(stack.ok()) << stack.status();
  EXPECT_EQ((*stack)->initial_memory_limit(), 48 * kMiB);
  EXPECT_EQ((*stack)->device_bfc()->GetPoolStats().memory_limit, size_t{48} << 20);
  EXPECT_EQ((*stack)->host_bfc()->GetPoolStats().memory_limit, size_t{100} << 20);
}

TEST(GPUProcessStateTest, HostLimitIsNeverMoreThanTheMachineGives) {
  // The default (64 GiB) and a hostile 1 PiB are lowered to the host memory
  // this process may have, less the margin the rest of the process needs
  // (HostMemoryBudget), so spilling ends in RESOURCE_EXHAUSTED, not with
  // the OOM killer.
  const int64_t machine = HostMemoryBudget::LimitFor(HostMemoryLimitBytes());
  ASSERT_GT(machine, 0);
  auto platform = MakePlatform("memory=64MiB,mode=functional");
  for (int64_t limit_mb : {GPUOptions().host_memory_limit_mb, int64_t{1} << 30}) {
    GPUOptions options = Limit(48 * kMiB);
    options.host_memory_limit_mb = limit_mb;
    absl::StatusOr<std::unique_ptr<GPUAllocatorStack>> stack =
        GPUProcessState::CreateStack(ExecutorOf(platform.get(), 0), options);
    ASSERT_TRUE(stack.ok()) << stack.status();
    EXPECT_EQ((*stack)->host_bfc()->GetPoolStats().memory_limit,
              static_cast<size_t>(std::min(limit_mb << 20, machine)));
  }
}

TEST(HostMemoryTest, CgroupLimitsAreReadFromEitherVersion) {
  const std::string dir = test::MakeTempDir("cgroup");
  EXPECT_EQ(CgroupMemoryLimitBytes(dir), 0);
  test::WriteFileAtomically(dir + "/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_EQ(CgroupMemoryLimitBytes(dir), 0);  // v1's "no limit".
  test::WriteFileAtomically(dir + "/memory.limit_in_bytes", "4294967296\n");
  EXPECT_EQ(CgroupMemoryLimitBytes(dir), int64_t{4} << 30);
  test::WriteFileAtomically(dir + "/memory.max", "max\n");
  EXPECT_EQ(CgroupMemoryLimitBytes(dir), int64_t{4} << 30);
  test::WriteFileAtomically(dir + "/memory.max", "1073741824\n");
  EXPECT_EQ(CgroupMemoryLimitBytes(dir), int64_t{1} << 30);
  EXPECT_LE(HostMemoryLimitBytes(), PhysicalMemoryBytes());
}

// `ulimit -d` (RLIMIT_DATA) lowers the limit; the soft limit is set high
// enough for this process's mappings (sanitizers' shadow included) and put
// back afterwards.
TEST(HostMemoryTest, ResourceLimitsLowerTheLimit) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_DATA, &saved), 0);
  constexpr int64_t kPetabyte = int64_t{1} << 50;
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < static_cast<rlim_t>(kPetabyte)) {
    GTEST_SKIP() << "the hard RLIMIT_DATA is below 1 PiB";
  }
  rlimit lowered = saved;
  lowered.rlim_cur = static_cast<rlim_t>(kPetabyte);
  ASSERT_EQ(setrlimit(RLIMIT_DATA, &lowered), 0);
  const int64_t resource = ResourceLimitBytes();
  const int64_t host = HostMemoryLimitBytes();
  ASSERT_EQ(setrlimit(RLIMIT_DATA, &saved), 0);
  EXPECT_GT(resource, 0);
  EXPECT_LE(resource, kPetabyte);
  EXPECT_LE(host, resource);
  EXPECT_LE(host, PhysicalMemoryBytes());
}

TEST(GPUProcessStateTest, SharedStackIsOneObjectPerDeviceWhateverLaterCallersPass) {
  auto platform = MakePlatform("count=2,memory=64MiB,mode=functional");
  GPUProcessState state;
  se::StreamExecutor* gpu0 = ExecutorOf(platform.get(), 0);
  absl::StatusOr<GPUAllocatorStack*> first = state.GetGPUAllocatorStack(gpu0, Limit(32 * kMiB));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<GPUAllocatorStack*> again = state.GetGPUAllocatorStack(gpu0, Limit(16 * kMiB));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*first, *again);
  EXPECT_EQ((*again)->initial_memory_limit(), 32 * kMiB);

  absl::StatusOr<GPUAllocatorStack*> other =
      state.GetGPUAllocatorStack(ExecutorOf(platform.get(), 1), Limit(32 * kMiB));
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_NE(*other, *first);

  // Another GPUProcessState keeps stacks of its own.
  GPUProcessState second_state;
  absl::StatusOr<GPUAllocatorStack*> theirs =
      second_state.GetGPUAllocatorStack(gpu0, Limit(32 * kMiB));
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  EXPECT_NE(*theirs, *first);
}

TEST(GPUProcessStateTest, PrivateStacksKeepTheirOwnLimitsOverOneDeviceCapacity) {
  // Stacks limited to 40 MiB each on a 64 MiB device, growing as needed (a
  // 30 MiB request reserves a 32 MiB region), without VMem.
  auto platform = MakePlatform("memory=64MiB,mode=functional");
  se::StreamExecutor* executor = ExecutorOf(platform.get(), 0);
  GPUOptions options = Limit(40 * kMiB);
  options.allow_growth = true;
  options.vmem = false;
  auto a = GPUProcessState::CreateStack(executor, options);
  auto b = GPUProcessState::CreateStack(executor, options);
  auto c = GPUProcessState::CreateStack(executor, options);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_NE(a->get(), b->get());
  Allocator* alloc_a = (*a)->allocator();
  Allocator* alloc_b = (*b)->allocator();
  Allocator* alloc_c = (*c)->allocator();
  EXPECT_EQ(alloc_a, (*a)->device_bfc());

  void* a1 = alloc_a->AllocateRaw(256, 30 * kMiB, kNoRetry);
  ASSERT_NE(a1, nullptr);
  // The device still has room, but `a` is at its limit.
  EXPECT_LT(executor->DeviceMemoryInUse(), 40 * kMiB);
  EXPECT_EQ(alloc_a->AllocateRaw(256, 20 * kMiB, kNoRetry), nullptr);

  // Two 30 MiB allocations fit the device together...
  void* b1 = alloc_b->AllocateRaw(256, 30 * kMiB, kNoRetry);
  ASSERT_NE(b1, nullptr);
  EXPECT_TRUE(executor->IsDeviceMemory(a1));
  EXPECT_TRUE(executor->IsDeviceMemory(b1));
  // ...a third does not, though `c` is far below its own limit.
  EXPECT_EQ(alloc_c->AllocateRaw(256, 30 * kMiB, kNoRetry), nullptr);

  // Capacity comes back when a stack goes away.
  alloc_a->DeallocateRaw(a1);
  a->reset();
  void* c1 = alloc_c->AllocateRaw(256, 30 * kMiB, kNoRetry);
  EXPECT_NE(c1, nullptr);
  if (c1 != nullptr) alloc_c->DeallocateRaw(c1);
  alloc_b->DeallocateRaw(b1);
}

TEST(GPUProcessStateTest, WithoutVMemTheDeviceBfcIsTheTopAndAnOversizedRequestFails) {
  auto platform = MakePlatform("memory=64MiB,mode=functional");
  GPUOptions options = Limit(16 * kMiB);
  options.vmem = false;
  auto stack = GPUProcessState::CreateStack(ExecutorOf(platform.get(), 0), options);
  ASSERT_TRUE(stack.ok()) << stack.status();
  EXPECT_EQ((*stack)->vmem(), nullptr);
  EXPECT_EQ((*stack)->allocator(), (*stack)->device_bfc());
  EXPECT_EQ((*stack)->allocator()->AllocateRaw(256, 20 * kMiB, kNoRetry), nullptr);
}

TEST(GPUProcessStateTest, WithVMemAllocationsPastTheDeviceLimitLandOnTheHostAndAreCounted) {
  auto platform = MakePlatform("memory=64MiB,mode=functional");
  se::StreamExecutor* executor = ExecutorOf(platform.get(), 0);
  auto stack = GPUProcessState::CreateStack(executor, Limit(16 * kMiB));
  ASSERT_TRUE(stack.ok()) << stack.status();
  VMemAllocator* vmem = (*stack)->vmem();
  ASSERT_NE(vmem, nullptr);
  EXPECT_EQ((*stack)->allocator(), vmem);

  void* on_device = vmem->AllocateRaw(256, 12 * kMiB);
  ASSERT_NE(on_device, nullptr);
  EXPECT_FALSE(vmem->IsOnHost(on_device));
  EXPECT_TRUE(executor->IsDeviceMemory(on_device));
  EXPECT_EQ(vmem->GetVMemStats().num_host_allocs, 0);

  // 12 MiB more exceed the 16 MiB limit; 80 MiB exceed the whole device.
  void* spilled = vmem->AllocateRaw(256, 12 * kMiB);
  void* huge = vmem->AllocateRaw(256, 80 * kMiB);
  ASSERT_NE(spilled, nullptr);
  ASSERT_NE(huge, nullptr);
  EXPECT_TRUE(vmem->IsOnHost(spilled));
  EXPECT_TRUE(vmem->IsOnHost(huge));
  EXPECT_FALSE(executor->IsDeviceMemory(spilled));
  VMemStats stats = vmem->GetVMemStats();
  EXPECT_EQ(stats.num_host_allocs, 2);
  EXPECT_GE(stats.host_bytes_in_use, 92 * kMiB);
  EXPECT_GE(stats.peak_host_bytes_in_use, stats.host_bytes_in_use);

  vmem->DeallocateRaw(spilled);
  vmem->DeallocateRaw(huge);
  vmem->DeallocateRaw(on_device);
  stats = vmem->GetVMemStats();
  EXPECT_EQ(stats.host_bytes_in_use, 0);
  EXPECT_GE(stats.peak_host_bytes_in_use, 92 * kMiB);
  EXPECT_EQ(vmem->num_bad_deallocations(), 0);
}

// ---------------------------------------------------------------------------
// The process default.

TEST(GPUProcessStateTest, SetDefaultReplacesAndRestoresTheDefault) {
  GPUProcessState* built_in = GPUProcessState::Default();
  ASSERT_NE(built_in, nullptr);
  EXPECT_EQ(GPUProcessState::Default(), built_in);  // Construct-on-first-use, once.

  GPUProcessState mine;
  GPUProcessState* previous = GPUProcessState::SetDefault(&mine);
  EXPECT_EQ(previous, nullptr);  // The built-in one was in place.
  EXPECT_EQ(GPUProcessState::Default(), &mine);

  GPUProcessState nested;
  EXPECT_EQ(GPUProcessState::SetDefault(&nested), &mine);
  EXPECT_EQ(GPUProcessState::Default(), &nested);
  EXPECT_EQ(GPUProcessState::SetDefault(&mine), &nested);

  EXPECT_EQ(GPUProcessState::SetDefault(previous), &mine);
  EXPECT_EQ(GPUProcessState::Default(), built_in);
}

}  // namespace
}  // namespace minitf
