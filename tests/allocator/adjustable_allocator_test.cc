#include "allocator/adjustable_allocator.h"

#include <memory>

#include "gtest/gtest.h"
#include "tests/testlib/capped_sub_allocator.h"

namespace minitf {
namespace {

constexpr size_t kMiB = 1024 * 1024;

struct Fixture {
  explicit Fixture(size_t limit) {
    auto owned = std::make_unique<test::CappedSubAllocator>(64 * kMiB);
    sub = owned.get();
    BFCAllocator::Options options;
    options.allow_growth = true;
    options.retry_timeout = absl::ZeroDuration();
    bfc = std::make_unique<BFCAllocator>(std::move(owned), limit, options);
  }
  test::CappedSubAllocator* sub;  // owned by bfc
  std::unique_ptr<BFCAllocator> bfc;
  AdjustableAllocator adjust;
};

TEST(AdjustableAllocatorTest, GrowThenAllocateSucceeds) {
  Fixture f(4 * kMiB);
  EXPECT_EQ(f.bfc->AllocateRaw(64, 6 * kMiB), nullptr);
  EXPECT_EQ(f.adjust.AdjustMemoryLimit(16 * kMiB, f.bfc.get()), 16 * kMiB);
  EXPECT_EQ(*f.bfc->GetStats()->bytes_limit, static_cast<int64_t>(16 * kMiB));
  void* p = f.bfc->AllocateRaw(64, 6 * kMiB);
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(f.sub->num_frees(), 0);
  f.bfc->DeallocateRaw(p);
}

TEST(AdjustableAllocatorTest, ShrinkAboveReservedOnlyMovesTheLimit) {
  Fixture f(16 * kMiB);
  void* p = f.bfc->AllocateRaw(64, kMiB);  // reserves 2 MiB, 1 MiB of it in use
  EXPECT_EQ(f.adjust.AdjustMemoryLimit(3 * kMiB, f.bfc.get()), 3 * kMiB);
  EXPECT_EQ(f.sub->num_frees(), 0);
  EXPECT_EQ(f.adjust.GetMemPoolStats(*f.bfc).pool_bytes, 2 * kMiB);
  // The new limit holds: 1 MiB free in the region and 1 MiB more to reserve.
  EXPECT_EQ(f.bfc->AllocateRaw(64, kMiB + 1), nullptr);
  void* q = f.bfc->AllocateRaw(64, kMiB);
  EXPECT_NE(q, nullptr);
  f.bfc->DeallocateRaw(p);
  f.bfc->DeallocateRaw(q);
}

TEST(AdjustableAllocatorTest, ShrinkBelowInUseReturnsTheReachedLimit) {
  Fixture f(64 * kMiB);
  void* a = f.bfc->AllocateRaw(64, kMiB);          // 2 MiB region
  void* b = f.bfc->AllocateRaw(64, 3 * kMiB / 2);  // 4 MiB region
  void* c = f.bfc->AllocateRaw(64, 3 * kMiB);      // 8 MiB region
  f.bfc->DeallocateRaw(c);
  MemPoolStats s = f.adjust.GetMemPoolStats(*f.bfc);
  EXPECT_EQ(s.pool_bytes, 14 * kMiB);
  EXPECT_EQ(s.live_region_bytes, 6 * kMiB);
  EXPECT_EQ(f.adjust.AdjustMemoryLimit(kMiB, f.bfc.get()), 6 * kMiB);
  EXPECT_EQ(f.sub->num_frees(), 1);
  s = f.adjust.GetMemPoolStats(*f.bfc);
  EXPECT_EQ(s.pool_bytes, 6 * kMiB);
  EXPECT_EQ(s.memory_limit, 6 * kMiB);
  EXPECT_EQ(s.num_regions, 2);
  f.bfc->DeallocateRaw(a);
  f.bfc->DeallocateRaw(b);
}

TEST(AdjustableAllocatorTest, ShrinkToEmptyReleasesEveryRegionThenGrowWorks) {
  Fixture f(64 * kMiB);
  void* a = f.bfc->AllocateRaw(64, kMiB);
  void* b = f.bfc->AllocateRaw(64, 3 * kMiB / 2);
  void* c = f.bfc->AllocateRaw(64, 3 * kMiB);
  for (void* p : {a, b, c}) f.bfc->DeallocateRaw(p);
  EXPECT_EQ(f.adjust.AdjustMemoryLimit(0, f.bfc.get()), 0u);
  EXPECT_EQ(f.sub->num_frees(), 3);
  EXPECT_EQ(f.sub->bytes_outstanding(), 0u);
  EXPECT_EQ(f.adjust.GetMemPoolStats(*f.bfc).num_regions, 0);
  EXPECT_EQ(f.bfc->AllocateRaw(64, 1024), nullptr);  // limit 0
  EXPECT_EQ(f.adjust.AdjustMemoryLimit(8 * kMiB, f.bfc.get()), 8 * kMiB);
  void* d = f.bfc->AllocateRaw(64, 5 * kMiB);
  EXPECT_NE(d, nullptr);
  f.bfc->DeallocateRaw(d);
}

}  // namespace
}  // namespace minitf
