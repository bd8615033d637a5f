// BFCAllocator against the scenarios of TensorFlow's BFC allocator tests
// (tensorflow/core/common_runtime/gpu/gpu_bfc_allocator_test.cc): the same
// sequences of requests, with the statistics TensorFlow expects (chunk bytes,
// rounded to 256). TensorFlow runs them on a GPU; here a capped host
// sub-allocator stands in for the device. Where a scenario is scaled down (a
// smaller pool, fewer regions) the comment says so; docs/ARCHITECTURE.md
// lists where minitf's BFC deliberately differs from TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "allocator/bfc_allocator.h"
#include "gtest/gtest.h"
#include "tests/testlib/capped_sub_allocator.h"

namespace minitf {
namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * kKiB;
constexpr size_t kGiB = 1024 * kMiB;

struct Pool {
  Pool(size_t limit, bool allow_growth) {
    auto owned = std::make_unique<test::CappedSubAllocator>(limit);
    sub = owned.get();
    BFCAllocator::Options options;
    options.allow_growth = allow_growth;
    options.name = "tf_scenarios_bfc";
    options.retry_timeout = absl::Milliseconds(20);
    bfc = std::make_unique<BFCAllocator>(std::move(owned), limit, options);
  }
  test::CappedSubAllocator* sub;  // owned by bfc
  std::unique_ptr<BFCAllocator> bfc;
};

// TensorFlow's CheckStats: the four counters it asserts after each phase.
void ExpectStats(const BFCAllocator& a, int64_t num_allocs, int64_t bytes_in_use,
                 int64_t peak_bytes_in_use, int64_t largest_alloc_size) {
  const AllocatorStats s = *a.GetStats();
  EXPECT_EQ(s.num_allocs, num_allocs) << s.DebugString();
  EXPECT_EQ(s.bytes_in_use, bytes_in_use) << s.DebugString();
  EXPECT_EQ(s.peak_bytes_in_use, peak_bytes_in_use) << s.DebugString();
  EXPECT_EQ(s.largest_alloc_size, largest_alloc_size) << s.DebugString();
}

// Sorts `ptrs` and checks that no two are equal and none overlaps the next
// one's start (each covers at least its requested bytes).
void ExpectDistinctAndDisjoint(const BFCAllocator& a, std::vector<void*> ptrs) {
  std::sort(ptrs.begin(), ptrs.end());
  for (size_t i = 1; i < ptrs.size(); ++i) {
    ASSERT_NE(ptrs[i], ptrs[i - 1]) << i;
    const size_t requested = a.RequestedSize(ptrs[i - 1]);
    ASSERT_GT(requested, 0u) << i;
    ASSERT_GE(static_cast<size_t>(static_cast<char*>(ptrs[i]) - static_cast<char*>(ptrs[i - 1])),
              requested)
        << i;
  }
}

// The chunk bytes of the live pointers, from AllocatedSize.
int64_t SumAllocated(const BFCAllocator& a, const std::vector<void*>& ptrs) {
  int64_t sum = 0;
  for (void* p : ptrs) sum += static_cast<int64_t>(a.AllocatedSize(p));
  return sum;
}

// A request of 100 bytes .. `max_bytes`, as TensorFlow's random scenarios draw.
size_t RandomSize(std::mt19937& rng, size_t max_bytes) {
  return std::clamp<size_t>(rng() % max_bytes, 100, max_bytes);
}

TEST(BFCAllocatorTFScenariosTest, NoDupsAndStatsCountRoundedChunks) {
  Pool pool(kGiB, /*allow_growth=*/true);
  BFCAllocator& a = *pool.bfc;
  ExpectStats(a, 0, 0, 0, 0);
  std::vector<void*> ptrs;
  for (size_t s = 1; s < 1024; ++s) {
    void* p = a.AllocateRaw(1, s);
    ASSERT_NE(p, nullptr) << s;
    ptrs.push_back(p);
  }
  // 256 requests each round to 256, 512 and 768 bytes, 255 to 1024.
  constexpr int64_t kChunkBytes = 256 * 256 + 256 * 512 + 256 * 768 + 255 * 1024;
  static_assert(kChunkBytes == 654336);
  ExpectStats(a, 1023, kChunkBytes, kChunkBytes, 1024);
  ExpectDistinctAndDisjoint(a, ptrs);
  for (void* p : ptrs) a.DeallocateRaw(p);
  ExpectStats(a, 1023, 0, kChunkBytes, 1024);
}

TEST(BFCAllocatorTFScenariosTest, AllocationsAndDeallocationsDoNotOverlap) {
  Pool pool(kGiB, /*allow_growth=*/true);
  BFCAllocator& a = *pool.bfc;
  std::mt19937 rng(123);
  std::vector<void*> initial;
  for (int i = 1; i < 256; ++i) {
    void* p = a.AllocateRaw(1, RandomSize(rng, kMiB));
    ASSERT_NE(p, nullptr) << i;
    initial.push_back(p);
  }
  std::vector<void*> live;
  for (size_t i = 0; i < initial.size(); ++i) {
    if (i % 2 == 1) {
      a.DeallocateRaw(initial[i]);
    } else {
      live.push_back(initial[i]);
    }
  }
  // A request past the limit fails and leaves the pool usable.
  EXPECT_EQ(a.AllocateRaw(1, kGiB + 1), nullptr);
  for (int i = 1; i < 256; ++i) {
    const size_t bytes = RandomSize(rng, kMiB);
    void* p = a.AllocateRaw(1, bytes);
    ASSERT_NE(p, nullptr) << i;
    EXPECT_EQ(a.RequestedSize(p), bytes);
    EXPECT_GE(a.AllocatedSize(p), BFCAllocator::RoundedBytes(bytes));
    EXPECT_EQ(a.AllocatedSize(p) % BFCAllocator::kMinAllocationSize, 0u);
    live.push_back(p);
  }
  ExpectDistinctAndDisjoint(a, live);
  EXPECT_EQ(a.GetStats()->bytes_in_use, SumAllocated(a, live));
  for (void* p : live) a.DeallocateRaw(p);
  EXPECT_EQ(a.GetStats()->bytes_in_use, 0);
  EXPECT_EQ(a.num_bad_deallocations(), 0);
}

TEST(BFCAllocatorTFScenariosTest, ExerciseCoalescing) {
  // TensorFlow's pool is 1 GiB, one region; 256 MiB holds the same buffers
  // in one region, each split off exactly.
  Pool pool(256 * kMiB, /*allow_growth=*/false);
  BFCAllocator& a = *pool.bfc;
  ExpectStats(a, 0, 0, 0, 0);
  void* first = a.AllocateRaw(64, 1024 * sizeof(float));
  ASSERT_NE(first, nullptr);
  a.DeallocateRaw(first);
  ExpectStats(a, 1, 0, 4096, 4096);
  for (int i = 0; i < 1024; ++i) {
    // Repeating this must neither fragment the pool nor grow it.
    void* t1 = a.AllocateRaw(64, 1024 * sizeof(float));
    void* t2 = a.AllocateRaw(64, 1048576 * sizeof(int64_t));
    void* t3 = a.AllocateRaw(64, 2048 * sizeof(double));
    void* t4 = a.AllocateRaw(64, 10485760 * sizeof(float));
    ASSERT_TRUE(t1 && t2 && t3 && t4) << i;
    for (void* p : {t1, t2, t3, t4}) a.DeallocateRaw(p);
  }
  constexpr int64_t kPeak = 1024 * sizeof(float) + 1048576 * sizeof(int64_t) +
                            2048 * sizeof(double) + 10485760 * sizeof(float);
  ExpectStats(a, 4097, 0, kPeak, 10485760 * sizeof(float));
  EXPECT_EQ(pool.sub->num_allocs(), 1);
  // All of it coalesced back into one free chunk: the next buffer starts
  // where the first did.
  void* first_again = a.AllocateRaw(64, 1024 * sizeof(float));
  EXPECT_EQ(first_again, first);
  a.DeallocateRaw(first_again);
}

TEST(BFCAllocatorTFScenariosTest, AllocateZeroBufSizeReturnsNullptr) {
  Pool pool(kGiB, /*allow_growth=*/true);
  BFCAllocator& a = *pool.bfc;
  EXPECT_EQ(a.AllocateRaw(64, 0), nullptr);
  AllocationAttributes no_retry;
  no_retry.no_retry_on_failure = true;
  EXPECT_EQ(a.AllocateRaw(64, 0, no_retry), nullptr);
  // Nothing was taken, counted or reserved.
  ExpectStats(a, 0, 0, 0, 0);
  EXPECT_EQ(a.GetStats()->bytes_reserved, 0);
  EXPECT_EQ(pool.sub->num_allocs(), 0);
  a.DeallocateRaw(nullptr);  // what a caller holding the result frees
  EXPECT_EQ(a.num_bad_deallocations(), 0);
}

TEST(BFCAllocatorTFScenariosTest, TracksSizes) {
  Pool pool(kMiB, /*allow_growth=*/true);
  EXPECT_TRUE(pool.bfc->TracksAllocationSizes());
}

TEST(BFCAllocatorTFScenariosTest, AllocatedVsRequested) {
  Pool pool(kGiB, /*allow_growth=*/true);
  BFCAllocator& a = *pool.bfc;
  void* t1 = a.AllocateRaw(64, sizeof(float));
  ASSERT_NE(t1, nullptr);
  EXPECT_EQ(a.RequestedSize(t1), 4u);
  EXPECT_EQ(a.AllocatedSize(t1), 256u);
  ExpectStats(a, 1, 256, 256, 256);
  a.DeallocateRaw(t1);
  ExpectStats(a, 1, 0, 256, 256);
}

TEST(BFCAllocatorTFScenariosTest, TestCustomMemoryLimit) {
  Pool pool(2 * kMiB, /*allow_growth=*/true);
  BFCAllocator& a = *pool.bfc;
  void* first = a.AllocateRaw(64, (1 << 6) * sizeof(float));
  void* second = a.AllocateRaw(64, (2 << 20) * sizeof(float));
  EXPECT_NE(first, nullptr);
  EXPECT_EQ(second, nullptr);
  EXPECT_LE(a.GetStats()->bytes_reserved, static_cast<int64_t>(2 * kMiB));
  a.DeallocateRaw(first);
}

TEST(BFCAllocatorTFScenariosTest, AllocationsAndDeallocationsWithGrowth) {
  // At most 2 GiB, starting with a 2 MiB region.
  Pool pool(2 * kGiB, /*allow_growth=*/true);
  BFCAllocator& a = *pool.bfc;
  std::mt19937 rng(123);
  std::vector<void*> initial;
  for (int i = 1; i < 10; ++i) {
    void* p = a.AllocateRaw(1, RandomSize(rng, 128 * kMiB));
    ASSERT_NE(p, nullptr) << i;
    initial.push_back(p);
  }
  std::vector<void*> live;
  for (size_t i = 0; i < initial.size(); ++i) {
    if (i % 2 == 1) {
      a.DeallocateRaw(initial[i]);
    } else {
      live.push_back(initial[i]);
    }
  }
  for (int i = 1; i < 10; ++i) {
    void* p = a.AllocateRaw(1, RandomSize(rng, 64 * kMiB));
    ASSERT_NE(p, nullptr) << i;
    live.push_back(p);
  }
  ExpectDistinctAndDisjoint(a, live);
  const AllocatorStats s = *a.GetStats();
  EXPECT_GT(pool.sub->num_allocs(), 1);  // the pool grew region by region
  EXPECT_EQ(s.bytes_in_use, SumAllocated(a, live));
  EXPECT_LE(s.bytes_in_use, s.bytes_reserved);
  EXPECT_LE(s.bytes_reserved, static_cast<int64_t>(2 * kGiB));
  for (void* p : live) a.DeallocateRaw(p);
  EXPECT_EQ(a.GetStats()->bytes_in_use, 0);
}

TEST(BFCAllocatorTFScenariosTest, AChunkTooSmallToSplitCountsWhole) {
  // A 40 MiB request under allow_growth takes a 64 MiB region (2 MiB
  // doubled); the 24 MiB left is smaller than the request, so the chunk is
  // not split and all 64 MiB count as in use, as in TensorFlow.
  Pool pool(kGiB, /*allow_growth=*/true);
  BFCAllocator& a = *pool.bfc;
  void* p = a.AllocateRaw(64, 40 * kMiB);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(pool.sub->alloc_sizes(), std::vector<size_t>{64 * kMiB});
  EXPECT_EQ(a.RequestedSize(p), 40 * kMiB);
  EXPECT_EQ(a.AllocatedSize(p), 64 * kMiB);
  ExpectStats(a, 1, 64 * kMiB, 64 * kMiB, 64 * kMiB);
  EXPECT_EQ(a.UnusedBytes(), kGiB - 64 * kMiB);
  a.DeallocateRaw(p);
  ExpectStats(a, 1, 0, 64 * kMiB, 64 * kMiB);
}

TEST(BFCAllocatorTFScenariosTest, ClearStatsKeepsWhatIsLiveAndForgetsHistory) {
  Pool pool(kMiB, /*allow_growth=*/false);
  BFCAllocator& a = *pool.bfc;
  void* small = a.AllocateRaw(64, 1000);  // 1 KiB chunk
  void* big = a.AllocateRaw(64, 5000);    // 5 KiB chunk
  ASSERT_TRUE(small && big);
  ExpectStats(a, 2, 6 * kKiB, 6 * kKiB, 5 * kKiB);
  a.DeallocateRaw(big);
  a.ClearStats();
  ExpectStats(a, 0, kKiB, kKiB, 0);
  void* next = a.AllocateRaw(64, 300);  // 512-byte chunk
  ASSERT_NE(next, nullptr);
  ExpectStats(a, 1, kKiB + 512, kKiB + 512, 512);
  a.DeallocateRaw(small);
  a.DeallocateRaw(next);
  ExpectStats(a, 1, 0, kKiB + 512, 512);
}

TEST(BFCAllocatorTFScenariosTest, LargestFreeBlockIsTheLargestFreeChunk) {
  Pool pool(kMiB, /*allow_growth=*/false);
  BFCAllocator& a = *pool.bfc;
  EXPECT_EQ(a.GetStats()->largest_free_block_bytes, 0);  // nothing reserved yet
  char* p = static_cast<char*>(a.AllocateRaw(64, 100 * kKiB));
  char* q = static_cast<char*>(a.AllocateRaw(64, 200 * kKiB));
  char* r = static_cast<char*>(a.AllocateRaw(64, 300 * kKiB));
  ASSERT_TRUE(p && q && r);
  EXPECT_EQ(a.GetStats()->largest_free_block_bytes, static_cast<int64_t>(424 * kKiB));
  a.DeallocateRaw(r);  // merges with the tail
  EXPECT_EQ(a.GetStats()->largest_free_block_bytes, static_cast<int64_t>(724 * kKiB));
  void* rest = a.AllocateRaw(64, 724 * kKiB);
  ASSERT_NE(rest, nullptr);
  EXPECT_EQ(a.GetStats()->largest_free_block_bytes, 0);  // the pool is full
  a.DeallocateRaw(q);  // a 200 KiB hole between two live chunks
  EXPECT_EQ(a.GetStats()->largest_free_block_bytes, static_cast<int64_t>(200 * kKiB));
  EXPECT_EQ(a.GetMemoryDump().largest_free_chunk, 200 * kKiB);
  for (void* x : {static_cast<void*>(p), rest}) a.DeallocateRaw(x);
  EXPECT_EQ(a.GetStats()->largest_free_block_bytes, static_cast<int64_t>(kMiB));
}

TEST(BFCAllocatorTFScenariosTest, BinDebugInfo) {
  // TensorFlow's pool is 1 GiB; 64 MiB leaves its remainder in bin 17.
  Pool pool(64 * kMiB, /*allow_growth=*/false);
  BFCAllocator& a = *pool.bfc;
  constexpr int kNumTestSizes = 5;
  constexpr int kNumChunksPerSize = 2;
  std::vector<void*> ptrs;
  std::vector<size_t> allocated;
  size_t total = 0;
  for (int i = 0; i < kNumTestSizes; ++i) {
    for (int j = 0; j < kNumChunksPerSize; ++j) {
      void* p = a.AllocateRaw(1, size_t{256} << i);
      ASSERT_NE(p, nullptr);
      ptrs.push_back(p);
      allocated.push_back(a.AllocatedSize(p));
      total += allocated.back();
    }
  }
  MemoryDump d = a.GetMemoryDump();
  ASSERT_EQ(d.bins.size(), static_cast<size_t>(BFCAllocator::kNumBins));
  int chunks = 0;
  for (const BinSummary& b : d.bins) chunks += static_cast<int>(b.free_chunks + b.in_use_chunks);
  EXPECT_EQ(chunks, 1 + kNumTestSizes * kNumChunksPerSize);  // the remainder and the ten
  for (int i = 0; i < BFCAllocator::kNumBins; ++i) {
    const BinSummary& b = d.bins[i];
    EXPECT_EQ(b.min_chunk_size, size_t{256} << i);
    if (i < kNumTestSizes) {
      EXPECT_EQ(b.in_use_chunks, kNumChunksPerSize) << i;
      EXPECT_EQ(b.in_use_bytes, allocated[2 * i] + allocated[2 * i + 1]) << i;
      EXPECT_EQ(b.requested_bytes, 2 * (size_t{256} << i)) << i;
      EXPECT_EQ(b.free_chunks, 0) << i;
    } else if (i == 17) {
      EXPECT_EQ(b.in_use_chunks, 0);
      EXPECT_EQ(b.free_chunks, 1);
      EXPECT_EQ(b.free_bytes, 64 * kMiB - total);
    } else {
      EXPECT_EQ(b.in_use_chunks + b.free_chunks, 0) << i;
    }
  }
  for (size_t i = 1; i < ptrs.size(); i += 2) a.DeallocateRaw(ptrs[i]);
  d = a.GetMemoryDump();
  for (int i = 0; i < BFCAllocator::kNumBins; ++i) {
    const BinSummary& b = d.bins[i];
    if (i < kNumTestSizes) {
      // Which free chunks merged decides the free side; the live side is exact.
      EXPECT_EQ(b.in_use_chunks, 1) << i;
      EXPECT_EQ(b.in_use_bytes, allocated[2 * i]) << i;
      EXPECT_EQ(b.requested_bytes, size_t{256} << i) << i;
      EXPECT_GE(b.in_use_bytes + b.free_bytes, allocated[2 * i]) << i;
    } else {
      EXPECT_EQ(b.in_use_chunks, 0) << i;
      EXPECT_EQ(b.requested_bytes, 0u) << i;
    }
  }
  for (size_t i = 0; i < ptrs.size(); i += 2) a.DeallocateRaw(ptrs[i]);
}

TEST(BFCAllocatorTFScenariosTest, RegionDeallocationLeavesOnlyTheLiveRegion) {
  // TensorFlow fills regions with 128 buffers of 4 MiB; 8 of 2 MiB give the
  // same picture with less memory: regions of 2, 4 and 8 MiB hold the first
  // seven, the last starts a 16 MiB region.
  Pool pool(2 * kGiB, /*allow_growth=*/true);
  BFCAllocator& a = *pool.bfc;
  std::vector<void*> ptrs;
  for (int i = 0; i < 8; ++i) {
    void* p = a.AllocateRaw(1, 2 * kMiB);
    ASSERT_NE(p, nullptr) << i;
    ptrs.push_back(p);
  }
  EXPECT_EQ(a.GetPoolStats().num_regions, 4);
  for (size_t i = 0; i + 1 < ptrs.size(); ++i) a.DeallocateRaw(ptrs[i]);
  EXPECT_EQ(a.FreeEmptyMemory(0), 16 * kMiB);
  EXPECT_EQ(a.GetPoolStats().num_regions, 1);
  int64_t free_chunks = 0;
  for (const BinSummary& b : a.GetMemoryDump().bins) free_chunks += b.free_chunks;
  EXPECT_EQ(free_chunks, 1);  // the rest of the last region, after its buffer
  EXPECT_EQ(a.GetStats()->bytes_in_use, static_cast<int64_t>(2 * kMiB));
  a.DeallocateRaw(ptrs.back());
}

}  // namespace
}  // namespace minitf
