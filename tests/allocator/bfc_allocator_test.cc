// Exact behaviour of BFCAllocator over a capped test sub-allocator.
#include "allocator/bfc_allocator.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "sanitizer/asan_interface.h"
#include "tests/testlib/capped_sub_allocator.h"

namespace minitf {
namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

AllocationAttributes NoRetry() {
  AllocationAttributes attrs;
  attrs.no_retry_on_failure = true;
  return attrs;
}

struct Fixture {
  Fixture(size_t capacity, size_t limit, bool allow_growth, bool gc = true) {
    auto owned = std::make_unique<test::CappedSubAllocator>(capacity);
    sub = owned.get();
    BFCAllocator::Options options;
    options.allow_growth = allow_growth;
    options.garbage_collection = gc;
    options.name = "test_bfc";
    options.retry_timeout = absl::Milliseconds(50);
    bfc = std::make_unique<BFCAllocator>(std::move(owned), limit, options);
  }
  test::CappedSubAllocator* sub;  // owned by bfc
  std::unique_ptr<BFCAllocator> bfc;
};

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
constexpr bool kAddressSanitizer = false;
#endif

// Asks AddressSanitizer's shadow memory; the template keeps the call out of
// builds without the ASan runtime.
template <bool kAsan = kAddressSanitizer>
bool IsPoisoned(const void* p) {
  if constexpr (kAsan) {
    return __asan_address_is_poisoned(p) != 0;
  } else {
    return false;
  }
}

int64_t FreeChunks(const MemoryDump& d) {
  int64_t n = 0;
  for (const BinSummary& b : d.bins) n += b.free_chunks;
  return n;
}

TEST(BFCAllocatorTest, StatsAfterScriptedSequence) {
  Fixture f(kMiB, kMiB, /*allow_growth=*/false);
  void* a = f.bfc->AllocateRaw(64, 1000);
  void* b = f.bfc->AllocateRaw(64, 3000);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  AllocatorStats s = *f.bfc->GetStats();
  // Chunk bytes, as TensorFlow counts: 1000 and 3000 round to 1 KiB and 3 KiB.
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.bytes_in_use, 4096);
  EXPECT_EQ(s.peak_bytes_in_use, 4096);
  EXPECT_EQ(s.largest_alloc_size, 3072);
  EXPECT_EQ(s.bytes_reserved, static_cast<int64_t>(kMiB));  // one region, the whole limit
  EXPECT_EQ(s.peak_bytes_reserved, static_cast<int64_t>(kMiB));
  EXPECT_EQ(*s.bytes_limit, static_cast<int64_t>(kMiB));
  EXPECT_EQ(f.bfc->RequestedSize(a), 1000u);
  EXPECT_EQ(f.bfc->AllocatedSize(a), 1024u);
  EXPECT_EQ(f.bfc->AllocatedSize(b), 3072u);

  f.bfc->DeallocateRaw(a);
  s = *f.bfc->GetStats();
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.bytes_in_use, 3072);
  EXPECT_EQ(s.peak_bytes_in_use, 4096);

  f.bfc->ClearStats();
  s = *f.bfc->GetStats();
  EXPECT_EQ(s.num_allocs, 0);
  EXPECT_EQ(s.peak_bytes_in_use, 3072);
  EXPECT_EQ(s.largest_alloc_size, 0);
  f.bfc->DeallocateRaw(b);
  EXPECT_EQ(f.bfc->GetStats()->bytes_in_use, 0);
  EXPECT_EQ(f.sub->num_allocs(), 1);
}

TEST(BFCAllocatorTest, SplitThenCoalesceBackToOneChunk) {
  Fixture f(kMiB, kMiB, /*allow_growth=*/false);
  char* a = static_cast<char*>(f.bfc->AllocateRaw(64, kKiB));
  char* b = static_cast<char*>(f.bfc->AllocateRaw(64, kKiB));
  char* c = static_cast<char*>(f.bfc->AllocateRaw(64, kKiB));
  // Best fit at the lowest address: consecutive chunks of one region.
  EXPECT_EQ(b, a + kKiB);
  EXPECT_EQ(c, b + kKiB);
  EXPECT_EQ(FreeChunks(f.bfc->GetMemoryDump()), 1);

  f.bfc->DeallocateRaw(b);  // the middle: no free neighbour
  MemoryDump d = f.bfc->GetMemoryDump();
  EXPECT_EQ(FreeChunks(d), 2);
  EXPECT_EQ(d.bins[2].free_chunks, 1);  // the 1 KiB hole is in bin [1 KiB, 2 KiB)
  EXPECT_GT(d.fragmentation, 0.0);

  f.bfc->DeallocateRaw(a);  // merges with b's hole
  d = f.bfc->GetMemoryDump();
  EXPECT_EQ(FreeChunks(d), 2);
  EXPECT_EQ(d.bins[3].free_chunks, 1);  // 2 KiB
  EXPECT_EQ(d.bins[2].free_chunks, 0);

  f.bfc->DeallocateRaw(c);  // merges both sides
  d = f.bfc->GetMemoryDump();
  EXPECT_EQ(FreeChunks(d), 1);
  EXPECT_EQ(d.largest_free_chunk, kMiB);
  EXPECT_EQ(d.free_bytes, kMiB);
  EXPECT_EQ(d.fragmentation, 0.0);
  EXPECT_NE(d.DebugString().find("test_bfc"), std::string::npos);
}

TEST(BFCAllocatorTest, FreedHoleIsReusedByBestFit) {
  Fixture f(kMiB, kMiB, false);
  char* a = static_cast<char*>(f.bfc->AllocateRaw(64, 4 * kKiB));
  char* b = static_cast<char*>(f.bfc->AllocateRaw(64, kKiB));
  char* c = static_cast<char*>(f.bfc->AllocateRaw(64, kKiB));
  f.bfc->DeallocateRaw(b);
  // A 1 KiB request takes the 1 KiB hole, not the large tail.
  EXPECT_EQ(f.bfc->AllocateRaw(64, 700), b);
  f.bfc->DeallocateRaw(a);
  f.bfc->DeallocateRaw(b);
  f.bfc->DeallocateRaw(c);
}

TEST(BFCAllocatorTest, SmallRemainderIsNotSplit) {
  Fixture f(kMiB, kMiB, false);
  char* a = static_cast<char*>(f.bfc->AllocateRaw(64, 4 * kKiB));
  char* b = static_cast<char*>(f.bfc->AllocateRaw(64, kKiB));
  f.bfc->DeallocateRaw(a);  // a 4 KiB hole
  // 3 KiB out of 4 KiB: the 1 KiB remainder is smaller than the request.
  EXPECT_EQ(f.bfc->AllocateRaw(64, 3 * kKiB), a);
  EXPECT_EQ(f.bfc->AllocatedSize(a), 4 * kKiB);
  f.bfc->DeallocateRaw(a);
  // 1 KiB out of 4 KiB: split.
  EXPECT_EQ(f.bfc->AllocateRaw(64, kKiB), a);
  EXPECT_EQ(f.bfc->AllocatedSize(a), kKiB);
  f.bfc->DeallocateRaw(a);
  f.bfc->DeallocateRaw(b);
}

TEST(BFCAllocatorTest, EveryPointerIsAligned) {
  Fixture f(16 * kMiB, 16 * kMiB, true);
  std::vector<void*> live;
  for (size_t alignment = 1; alignment <= 8192; alignment *= 2) {
    for (size_t bytes : {1, 100, 256, 1000, 5000, 70000}) {
      void* p = f.bfc->AllocateRaw(alignment, bytes);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << alignment;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % BFCAllocator::kMinAllocationSize, 0u);
      live.push_back(p);
    }
  }
  for (void* p : live) f.bfc->DeallocateRaw(p);
  EXPECT_EQ(f.bfc->GetStats()->bytes_in_use, 0);
  EXPECT_EQ(f.bfc->num_bad_deallocations(), 0);
}

TEST(BFCAllocatorTest, ZeroByteRequestsReturnNullptrWithoutWaiting) {
  Fixture f(kMiB, kMiB, false);
  // Retry is allowed, but a zero-byte request is not a failure to wait out.
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(f.bfc->AllocateRaw(64, 0), nullptr);
  EXPECT_EQ(f.bfc->AllocateRaw(4096, 0), nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(40));
  EXPECT_EQ(f.sub->num_allocs(), 0);  // no region for it
  EXPECT_EQ(f.bfc->GetStats()->num_allocs, 0);
  // The pool works as before afterwards.
  void* a = f.bfc->AllocateRaw(64, 1);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(f.bfc->AllocatedSize(a), BFCAllocator::kMinAllocationSize);
  f.bfc->DeallocateRaw(a);
  EXPECT_EQ(f.bfc->num_bad_deallocations(), 0);
}

TEST(BFCAllocatorTest, HugeRequestsFailAtOnceWithoutWaiting) {
  Fixture f(kMiB, kMiB, true);
  auto start = std::chrono::steady_clock::now();
  // Retry is allowed, but these can never fit: no waiting for frees.
  EXPECT_EQ(f.bfc->AllocateRaw(64, SIZE_MAX), nullptr);
  EXPECT_EQ(f.bfc->AllocateRaw(64, SIZE_MAX / 2), nullptr);
  EXPECT_EQ(f.bfc->AllocateRaw(64, kMiB + 1), nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(40));
  EXPECT_EQ(f.sub->num_allocs(), 0);
  void* whole = f.bfc->AllocateRaw(64, kMiB);  // exactly the limit fits
  EXPECT_NE(whole, nullptr);
  f.bfc->DeallocateRaw(whole);
}

TEST(BFCAllocatorTest, NeverReservesBeyondTheLimit) {
  Fixture f(64 * kMiB, 3 * kMiB, true);
  std::vector<void*> live;
  while (void* p = f.bfc->AllocateRaw(64, 100 * kKiB, NoRetry())) live.push_back(p);
  const AllocatorStats s = *f.bfc->GetStats();
  EXPECT_LE(s.bytes_reserved, static_cast<int64_t>(3 * kMiB));
  EXPECT_LE(f.sub->bytes_outstanding(), 3 * kMiB);
  // All but the tail of the limit is used: 3 MiB / 100 KiB = 30.
  EXPECT_EQ(live.size(), 30u);
  for (void* p : live) f.bfc->DeallocateRaw(p);
}

TEST(BFCAllocatorTest, FailingAllocationWaitsThenGivesUp) {
  Fixture f(kMiB, kMiB, false);
  void* all = f.bfc->AllocateRaw(64, kMiB);
  ASSERT_NE(all, nullptr);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(f.bfc->AllocateRaw(64, kKiB), nullptr);  // waits retry_timeout (50 ms)
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(45));
  start = std::chrono::steady_clock::now();
  EXPECT_EQ(f.bfc->AllocateRaw(64, kKiB, NoRetry()), nullptr);  // does not wait
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(40));
  f.bfc->DeallocateRaw(all);
}

// The sub-allocator (the host, a device) refuses memory and none of the pool
// is in use: no deallocation can come, so the request fails without
// waiting. With a retry timeout of an hour, a wait would hang the test.
TEST(BFCAllocatorTest, FailingAllocationDoesNotWaitWhenNothingIsInUse) {
  auto owned = std::make_unique<test::CappedSubAllocator>(kMiB);
  BFCAllocator::Options options;
  options.allow_growth = true;
  options.name = "test_bfc";
  options.retry_timeout = absl::Hours(1);
  BFCAllocator bfc(std::move(owned), 64 * kMiB, options);
  EXPECT_EQ(bfc.AllocateRaw(64, 4 * kMiB), nullptr);
  EXPECT_EQ(bfc.GetStats()->bytes_in_use, 0);
  void* p = bfc.AllocateRaw(64, 512 * kKiB);  // what the sub-allocator can give
  EXPECT_NE(p, nullptr);
  bfc.DeallocateRaw(p);
}

TEST(BFCAllocatorTest, RegionsGrowByDoubling) {
  Fixture f(64 * kMiB, 64 * kMiB, true);
  void* a = f.bfc->AllocateRaw(64, kMiB);        // 2 MiB region
  void* b = f.bfc->AllocateRaw(64, 3 * kMiB / 2);  // 1 MiB left: a 4 MiB region
  void* c = f.bfc->AllocateRaw(64, 3 * kMiB);    // 2.5 MiB left: an 8 MiB region
  void* d = f.bfc->AllocateRaw(64, 20 * kMiB);   // 16 doubled to 32 MiB
  ASSERT_TRUE(a && b && c && d);
  EXPECT_EQ(f.sub->alloc_sizes(),
            (std::vector<size_t>{2 * kMiB, 4 * kMiB, 8 * kMiB, 32 * kMiB}));
  EXPECT_EQ(f.bfc->GetStats()->bytes_reserved, static_cast<int64_t>(46 * kMiB));
  for (void* p : {a, b, c, d}) f.bfc->DeallocateRaw(p);
}

TEST(BFCAllocatorTest, RegionsCutByTheLimitDoNotInflateTheNextRegion) {
  // A job whose limit was cut keeps reserving regions clamped to the small
  // limit and freeing them again. Each region doubles the next one's size
  // from the region actually taken, so when the limit is raised again the
  // next region is twice the last clamped one, not the whole new limit.
  Fixture f(64 * kMiB, 64 * kMiB, true);
  f.bfc->SetMemoryLimit(4 * kMiB);
  for (int i = 0; i < 70; ++i) {
    void* p = f.bfc->AllocateRaw(64, 3 * kMiB);
    ASSERT_NE(p, nullptr) << i;
    f.bfc->DeallocateRaw(p);
    f.bfc->FreeEmptyMemory(0);
  }
  EXPECT_EQ(f.bfc->GetStats()->bytes_reserved, 0);
  f.bfc->SetMemoryLimit(64 * kMiB);
  void* p = f.bfc->AllocateRaw(64, kMiB);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(f.sub->alloc_sizes().back(), 8 * kMiB);
  f.bfc->DeallocateRaw(p);
}

TEST(BFCAllocatorTest, FreeEmptyMemoryReturnsOnlyEmptyRegions) {
  Fixture f(64 * kMiB, 64 * kMiB, true);
  void* a = f.bfc->AllocateRaw(64, kMiB);
  void* b = f.bfc->AllocateRaw(64, 3 * kMiB / 2);
  void* c = f.bfc->AllocateRaw(64, 3 * kMiB);
  f.bfc->DeallocateRaw(a);
  f.bfc->DeallocateRaw(c);
  BFCAllocator::PoolStats p = f.bfc->GetPoolStats();
  EXPECT_EQ(p.num_regions, 3);
  EXPECT_EQ(p.num_empty_regions, 2);
  EXPECT_EQ(p.live_region_bytes, 4 * kMiB);
  // Largest first: freeing the 8 MiB region reaches 6 MiB.
  EXPECT_EQ(f.bfc->FreeEmptyMemory(7 * kMiB), 6 * kMiB);
  EXPECT_EQ(f.sub->num_frees(), 1);
  EXPECT_EQ(f.bfc->FreeEmptyMemory(0), 4 * kMiB);  // the region of b stays
  EXPECT_EQ(f.sub->num_frees(), 2);
  EXPECT_EQ(f.sub->bytes_outstanding(), 4 * kMiB);
  EXPECT_TRUE(f.bfc->Owns(b));
  f.bfc->DeallocateRaw(b);
  EXPECT_EQ(f.bfc->FreeEmptyMemory(0), 0u);
  EXPECT_EQ(f.sub->bytes_outstanding(), 0u);
  EXPECT_EQ(f.bfc->GetStats()->bytes_reserved, 0);
  // Still usable afterwards.
  void* d = f.bfc->AllocateRaw(64, kKiB);
  EXPECT_NE(d, nullptr);
  f.bfc->DeallocateRaw(d);
}

TEST(BFCAllocatorTest, OutOfMemoryFreesEmptyRegionsAndRetriesOnce) {
  Fixture f(4 * kMiB, 4 * kMiB, true);
  void* a = f.bfc->AllocateRaw(64, 3 * kMiB / 2);  // a 2 MiB region
  f.bfc->DeallocateRaw(a);
  // 3 MiB fits neither the empty 2 MiB region nor the 2 MiB left under the
  // limit; returning the empty region makes room for a 4 MiB one.
  void* b = f.bfc->AllocateRaw(64, 3 * kMiB, NoRetry());
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(f.sub->num_frees(), 1);
  EXPECT_EQ(f.bfc->GetStats()->bytes_reserved, static_cast<int64_t>(4 * kMiB));
  f.bfc->DeallocateRaw(b);
}

TEST(BFCAllocatorTest, WithoutGarbageCollectionEmptyRegionsAreKept) {
  Fixture f(4 * kMiB, 4 * kMiB, true, /*gc=*/false);
  void* a = f.bfc->AllocateRaw(64, 3 * kMiB / 2);
  f.bfc->DeallocateRaw(a);
  EXPECT_EQ(f.bfc->AllocateRaw(64, 3 * kMiB, NoRetry()), nullptr);
  EXPECT_EQ(f.sub->num_frees(), 0);
}

TEST(BFCAllocatorTest, DoubleFreeAndForeignPointersAreReportedAndIgnored) {
  Fixture f(kMiB, kMiB, false);
  char* a = static_cast<char*>(f.bfc->AllocateRaw(64, kKiB));
  char* b = static_cast<char*>(f.bfc->AllocateRaw(64, kKiB));
  f.bfc->DeallocateRaw(a);
  const AllocatorStats before = *f.bfc->GetStats();
  const MemoryDump dump_before = f.bfc->GetMemoryDump();
  f.bfc->DeallocateRaw(a);  // double free
  int on_stack = 0;
  f.bfc->DeallocateRaw(&on_stack);  // foreign
  f.bfc->DeallocateRaw(b + 256);    // inside a live allocation
  EXPECT_EQ(f.bfc->num_bad_deallocations(), 3);
  EXPECT_FALSE(f.bfc->TryDeallocateRaw(a));
  EXPECT_EQ(f.bfc->num_bad_deallocations(), 3);  // TryDeallocateRaw is silent
  EXPECT_EQ(f.bfc->GetStats()->bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(f.bfc->GetMemoryDump().free_bytes, dump_before.free_bytes);
  EXPECT_EQ(FreeChunks(f.bfc->GetMemoryDump()), FreeChunks(dump_before));
  // b is still live and intact, and new allocations do not overlap it.
  char* c = static_cast<char*>(f.bfc->AllocateRaw(64, kKiB));
  char* d = static_cast<char*>(f.bfc->AllocateRaw(64, kKiB));
  for (char* p : {c, d}) EXPECT_TRUE(p + kKiB <= b || p >= b + kKiB);
  EXPECT_FALSE(f.bfc->Owns(&on_stack));
  EXPECT_TRUE(f.bfc->Owns(b + 10));
  for (char* p : {b, c, d}) f.bfc->DeallocateRaw(p);
  EXPECT_EQ(f.bfc->GetStats()->bytes_in_use, 0);
}

TEST(BFCAllocatorTest, FreeChunksArePoisonedUnderAddressSanitizer) {
  if (!kAddressSanitizer) GTEST_SKIP() << "not an AddressSanitizer build";
  Fixture f(kMiB, kMiB, false);
  char* a = static_cast<char*>(f.bfc->AllocateRaw(64, 100));
  EXPECT_FALSE(IsPoisoned(a));
  EXPECT_FALSE(IsPoisoned(a + 127));  // rounded up to kAllocatorAlignment
  EXPECT_TRUE(IsPoisoned(a + 128));   // the rest of the 256-byte chunk
  EXPECT_TRUE(IsPoisoned(a + 4096));  // free space of the region
  f.bfc->DeallocateRaw(a);
  EXPECT_TRUE(IsPoisoned(a));  // use after free is caught
}

TEST(BFCAllocatorTest, HostSubAllocatorCallsItsVisitors) {
  size_t visited_alloc = 0, visited_free = 0;
  auto sub = std::make_unique<HostSubAllocator>(
      std::vector<SubAllocator::Visitor>{[&](void*, int, size_t n) { visited_alloc += n; }},
      std::vector<SubAllocator::Visitor>{[&](void*, int, size_t n) { visited_free += n; }});
  {
    BFCAllocator bfc(std::move(sub), 8 * kMiB, {});
    void* p = bfc.AllocateRaw(64, 100);
    EXPECT_EQ(visited_alloc, 2 * kMiB);
    bfc.DeallocateRaw(p);
  }
  EXPECT_EQ(visited_free, 2 * kMiB);  // regions go back when the allocator dies
}

}  // namespace
}  // namespace minitf
