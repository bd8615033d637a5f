#include "allocator/vmem_allocator.h"

#include <chrono>
#include <memory>

#include "gtest/gtest.h"
#include "tests/testlib/capped_sub_allocator.h"

namespace minitf {
namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * kKiB;

// A 1 MiB "device" (one region, no growth) and a host BFC.
struct Fixture {
  Fixture() {
    BFCAllocator::Options device_options;
    device_options.allow_growth = false;
    device_options.name = "device";
    device_options.retry_timeout = absl::Seconds(10);  // VMem must not wait on it
    device = std::make_unique<BFCAllocator>(std::make_unique<test::CappedSubAllocator>(kMiB),
                                            kMiB, device_options);
    BFCAllocator::Options host_options;
    host_options.name = "host";
    host = std::make_unique<BFCAllocator>(std::make_unique<HostSubAllocator>(), 64 * kMiB,
                                          host_options);
    vmem = std::make_unique<VMemAllocator>(device.get(), host.get());
  }
  std::unique_ptr<BFCAllocator> device;
  std::unique_ptr<BFCAllocator> host;
  std::unique_ptr<VMemAllocator> vmem;
};

TEST(VMemAllocatorTest, DeviceFullGoesToHostWithoutWaitingReasonOom) {
  Fixture f;
  void* on_device = f.vmem->AllocateRaw(64, kMiB);
  ASSERT_NE(on_device, nullptr);
  EXPECT_TRUE(f.device->Owns(on_device));
  const auto start = std::chrono::steady_clock::now();
  void* on_host = f.vmem->AllocateRaw(64, 4 * kKiB);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ASSERT_NE(on_host, nullptr);
  EXPECT_FALSE(f.device->Owns(on_host));
  EXPECT_TRUE(f.vmem->IsOnHost(on_host));
  const VMemStats s = f.vmem->GetVMemStats();
  EXPECT_EQ(s.host_bytes_in_use, static_cast<int64_t>(4 * kKiB));
  EXPECT_EQ(s.num_host_allocs, 1);
  EXPECT_EQ(s.num_oom_host_allocs, 1);
  EXPECT_EQ(s.last_reason, SwapReason::kOom);
  EXPECT_STREQ(SwapReasonName(s.last_reason), "OOM");
  EXPECT_EQ(f.vmem->RequestedSize(on_host), 4 * kKiB);
  EXPECT_EQ(f.vmem->RequestedSize(on_device), kMiB);
  f.vmem->DeallocateRaw(on_host);
  f.vmem->DeallocateRaw(on_device);
}

TEST(VMemAllocatorTest, FreeBytesWithoutAFittingChunkIsFragment) {
  Fixture f;
  void* q[4];
  for (void*& p : q) p = f.vmem->AllocateRaw(64, 256 * kKiB);
  for (void* p : q) ASSERT_TRUE(f.device->Owns(p));
  f.vmem->DeallocateRaw(q[0]);
  f.vmem->DeallocateRaw(q[2]);  // 512 KiB free, in two 256 KiB holes
  void* big = f.vmem->AllocateRaw(64, 300 * kKiB);
  ASSERT_NE(big, nullptr);
  EXPECT_TRUE(f.vmem->IsOnHost(big));
  EXPECT_EQ(f.vmem->GetVMemStats().last_reason, SwapReason::kFragment);
  EXPECT_EQ(f.vmem->GetVMemStats().num_fragment_host_allocs, 1);
  for (void* p : {q[1], q[3], big}) f.vmem->DeallocateRaw(p);
}

TEST(VMemAllocatorTest, FreesRouteToTheirOwnerAndDeviceIsUsedAgain) {
  Fixture f;
  void* on_device = f.vmem->AllocateRaw(64, kMiB);
  void* on_host = f.vmem->AllocateRaw(64, 10 * kKiB);
  ASSERT_TRUE(f.vmem->IsOnHost(on_host));
  EXPECT_EQ(f.host->GetStats()->bytes_in_use, static_cast<int64_t>(10 * kKiB));

  f.vmem->DeallocateRaw(on_host);
  EXPECT_EQ(f.host->GetStats()->bytes_in_use, 0);
  EXPECT_EQ(f.device->GetStats()->bytes_in_use, static_cast<int64_t>(kMiB));
  EXPECT_EQ(f.vmem->GetVMemStats().host_bytes_in_use, 0);
  EXPECT_EQ(f.vmem->GetVMemStats().peak_host_bytes_in_use, static_cast<int64_t>(10 * kKiB));

  f.vmem->DeallocateRaw(on_device);
  EXPECT_EQ(f.device->GetStats()->bytes_in_use, 0);
  // The device has room again: new buffers go there.
  void* again = f.vmem->AllocateRaw(64, 10 * kKiB);
  EXPECT_TRUE(f.device->Owns(again));
  EXPECT_FALSE(f.vmem->IsOnHost(again));
  EXPECT_EQ(f.vmem->GetVMemStats().num_host_allocs, 1);
  f.vmem->DeallocateRaw(again);
  EXPECT_EQ(f.vmem->num_bad_deallocations(), 0);
  EXPECT_EQ(f.device->num_bad_deallocations(), 0);
  EXPECT_EQ(f.host->num_bad_deallocations(), 0);
}

TEST(VMemAllocatorTest, DoubleFreeIsReportedAndIgnored) {
  Fixture f;
  void* on_device = f.vmem->AllocateRaw(64, kMiB);
  void* on_host = f.vmem->AllocateRaw(64, kKiB);
  f.vmem->DeallocateRaw(on_host);
  f.vmem->DeallocateRaw(on_host);
  f.vmem->DeallocateRaw(on_device);
  f.vmem->DeallocateRaw(on_device);
  EXPECT_EQ(f.vmem->num_bad_deallocations(), 2);
  EXPECT_EQ(f.host->num_bad_deallocations(), 0);
  EXPECT_EQ(f.vmem->GetVMemStats().host_bytes_in_use, 0);
  EXPECT_EQ(f.device->GetStats()->bytes_in_use, 0);
}

TEST(VMemAllocatorTest, ZeroByteRequestReturnsNullptrOnNeitherSide) {
  Fixture f;
  void* on_device = f.vmem->AllocateRaw(64, kMiB);  // the device is full
  ASSERT_TRUE(f.device->Owns(on_device));
  EXPECT_EQ(f.vmem->AllocateRaw(64, 0), nullptr);
  const VMemStats s = f.vmem->GetVMemStats();
  EXPECT_EQ(s.num_host_allocs, 0);  // not a spill
  EXPECT_EQ(s.last_reason, SwapReason::kNone);
  EXPECT_EQ(f.host->GetStats()->num_allocs, 0);
  EXPECT_EQ(f.device->GetStats()->num_allocs, 1);
  f.vmem->DeallocateRaw(nullptr);
  EXPECT_EQ(f.vmem->num_bad_deallocations(), 0);
  f.vmem->DeallocateRaw(on_device);
}

TEST(VMemAllocatorTest, HostBytesCountTheHostChunksAsTheDeviceCountsItsOwn) {
  Fixture f;
  void* on_device = f.vmem->AllocateRaw(64, kMiB - 1000);  // one 1 MiB chunk
  ASSERT_TRUE(f.device->Owns(on_device));
  EXPECT_EQ(f.device->GetStats()->bytes_in_use, static_cast<int64_t>(kMiB));
  EXPECT_EQ(f.vmem->AllocatedSize(on_device), kMiB);
  void* on_host = f.vmem->AllocateRaw(64, 1000);
  ASSERT_TRUE(f.vmem->IsOnHost(on_host));
  EXPECT_EQ(f.vmem->RequestedSize(on_host), 1000u);
  EXPECT_EQ(f.vmem->AllocatedSize(on_host), kKiB);
  VMemStats s = f.vmem->GetVMemStats();
  EXPECT_EQ(s.host_bytes_in_use, static_cast<int64_t>(kKiB));
  EXPECT_EQ(s.host_bytes_in_use, f.host->GetStats()->bytes_in_use);
  EXPECT_EQ(s.peak_host_bytes_in_use, static_cast<int64_t>(kKiB));
  f.vmem->DeallocateRaw(on_host);
  s = f.vmem->GetVMemStats();
  EXPECT_EQ(s.host_bytes_in_use, 0);
  EXPECT_EQ(s.peak_host_bytes_in_use, static_cast<int64_t>(kKiB));
  f.vmem->DeallocateRaw(on_device);
}

}  // namespace
}  // namespace minitf
