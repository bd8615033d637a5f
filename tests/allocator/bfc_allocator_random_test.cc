// Randomized traces against a reference model of live ranges: no two live
// allocations overlap, every pointer is aligned, and the statistics always
// equal the model's.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <map>
#include <random>
#include <vector>

#include "allocator/bfc_allocator.h"
#include "gtest/gtest.h"
#include "tests/testlib/capped_sub_allocator.h"

namespace minitf {
namespace {

constexpr size_t kMiB = 1024 * 1024;
constexpr int kOpsPerTrace = 100000;
constexpr int kSeeds = 16;

// The reference: live allocations by start address, a vector of their
// addresses for O(1) random picks, and the counters the allocator must report.
// (A node map is the cheapest ordered set here under ASan: a sorted vector
// spends its time in the sanitizer's memmove.)
struct Model {
  struct Live {
    size_t allocated;  // chunk size, AllocatedSize
    size_t requested;
    uint64_t tag;      // written at the start of the buffer
  };
  std::map<uintptr_t, Live> live;
  std::vector<uintptr_t> addresses;
  int64_t num_allocs = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
};

size_t RandomSize(std::mt19937_64& rng) {
  const uint64_t r = rng() % 100;
  if (r < 3) return 0;
  if (r < 70) return 1 + rng() % 4096;
  if (r < 95) return 4096 + rng() % (256 * 1024);
  return 256 * 1024 + rng() % (4 * kMiB);
}

void RunTrace(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const size_t limit = 256 * kMiB;
  auto owned = std::make_unique<test::CappedSubAllocator>(limit);
  test::CappedSubAllocator* sub = owned.get();
  BFCAllocator::Options options;
  options.allow_growth = seed % 2 == 0;
  options.name = "random_bfc";
  BFCAllocator bfc(std::move(owned), limit, options);
  AllocationAttributes no_retry;
  no_retry.no_retry_on_failure = true;

  Model m;
  int failures = 0;
  for (int op = 0; op < kOpsPerTrace; ++op) {
    const bool allocate = m.live.empty() || (m.live.size() < 600 && rng() % 100 < 55);
    if (allocate) {
      const size_t bytes = RandomSize(rng);
      const size_t alignment = rng() % 16 == 0 ? size_t{1} << (rng() % 13) : 64;
      char* p = static_cast<char*>(bfc.AllocateRaw(alignment, bytes, no_retry));
      if (bytes == 0) {  // As in TensorFlow: no chunk, nothing counted.
        ASSERT_EQ(p, nullptr) << "seed " << seed << " op " << op;
        continue;
      }
      if (p == nullptr) {
        ++failures;
        continue;
      }
      const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
      ASSERT_EQ(addr % alignment, 0u) << "seed " << seed << " op " << op;
      const size_t allocated = bfc.AllocatedSize(p);
      ASSERT_GE(allocated, BFCAllocator::RoundedBytes(bytes));
      // No overlap with the neighbours in address order.
      auto next = m.live.lower_bound(addr);
      if (next != m.live.end()) {
        ASSERT_LE(addr + allocated, next->first) << "seed " << seed << " op " << op;
      }
      if (next != m.live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second.allocated, addr) << "seed " << seed << " op " << op;
      }
      const uint64_t tag = rng();
      if (bytes >= sizeof(tag)) std::memcpy(p, &tag, sizeof(tag));
      m.live.emplace_hint(next, addr, Model::Live{allocated, bytes, tag});
      m.addresses.push_back(addr);
      ++m.num_allocs;
      // Chunk bytes, as TensorFlow's BFC counts them.
      m.bytes_in_use += static_cast<int64_t>(allocated);
      m.peak_bytes_in_use = std::max(m.peak_bytes_in_use, m.bytes_in_use);
      m.largest_alloc_size = std::max(m.largest_alloc_size, static_cast<int64_t>(allocated));
    } else {
      const size_t i = rng() % m.addresses.size();
      const uintptr_t addr = m.addresses[i];
      m.addresses[i] = m.addresses.back();
      m.addresses.pop_back();
      auto it = m.live.find(addr);
      if (it->second.requested >= sizeof(uint64_t)) {
        uint64_t tag;
        std::memcpy(&tag, reinterpret_cast<void*>(addr), sizeof(tag));
        ASSERT_EQ(tag, it->second.tag) << "seed " << seed << " op " << op << ": overwritten";
      }
      ASSERT_EQ(bfc.RequestedSize(reinterpret_cast<void*>(addr)), it->second.requested);
      m.bytes_in_use -= static_cast<int64_t>(it->second.allocated);
      m.live.erase(it);
      bfc.DeallocateRaw(reinterpret_cast<void*>(addr));
    }
    const AllocatorStats s = *bfc.GetStats();
    ASSERT_EQ(s.num_allocs, m.num_allocs) << "seed " << seed << " op " << op;
    ASSERT_EQ(s.bytes_in_use, m.bytes_in_use) << "seed " << seed << " op " << op;
    ASSERT_EQ(s.peak_bytes_in_use, m.peak_bytes_in_use);
    ASSERT_EQ(s.largest_alloc_size, m.largest_alloc_size);
    ASSERT_LE(s.bytes_reserved, static_cast<int64_t>(limit));
    ASSERT_EQ(static_cast<size_t>(s.bytes_reserved), sub->bytes_outstanding());
    if (op % 997 == 0) {
      ASSERT_EQ(static_cast<size_t>(s.largest_free_block_bytes),
                bfc.GetMemoryDump().largest_free_chunk)
          << "seed " << seed << " op " << op;
    }
    if (op % 10007 == 0) {
      bfc.FreeEmptyMemory(0);
      ASSERT_EQ(static_cast<size_t>(bfc.GetStats()->bytes_reserved), sub->bytes_outstanding());
    }
  }
  EXPECT_LT(failures, kOpsPerTrace / 100) << "seed " << seed;
  EXPECT_EQ(bfc.num_bad_deallocations(), 0);

  for (uintptr_t addr : m.addresses) bfc.DeallocateRaw(reinterpret_cast<void*>(addr));
  EXPECT_EQ(bfc.GetStats()->bytes_in_use, 0);
  // Everything coalesced: each region is one free chunk again.
  const MemoryDump d = bfc.GetMemoryDump();
  int64_t free_chunks = 0;
  for (const BinSummary& b : d.bins) {
    free_chunks += b.free_chunks;
    EXPECT_EQ(b.in_use_chunks, 0);
  }
  EXPECT_EQ(free_chunks, d.num_regions);
  EXPECT_EQ(bfc.FreeEmptyMemory(0), 0u);
  EXPECT_EQ(sub->bytes_outstanding(), 0u);
  EXPECT_EQ(sub->num_allocs(), sub->num_frees());
}

TEST(BFCAllocatorRandomTest, TracesMatchTheReferenceModel) {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    RunTrace(seed);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace minitf
