// BFCAllocator under concurrent use (run under ThreadSanitizer by `make check`).
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "allocator/bfc_allocator.h"
#include "gtest/gtest.h"
#include "tests/testlib/capped_sub_allocator.h"

namespace minitf {
namespace {

constexpr size_t kMiB = 1024 * 1024;
constexpr int kThreads = 8;

struct Block {
  unsigned char* ptr;
  size_t size;
  unsigned char pattern;
};

// Each thread allocates, fills with its own pattern, verifies and frees, with
// up to `max_live` blocks held at once. Sizes are 1..max_bytes, or exactly
// max_bytes when `fixed_size`.
void Worker(BFCAllocator* bfc, int thread, int iterations, size_t max_bytes, bool fixed_size,
            size_t max_live,
            std::atomic<int>* corrupted, std::atomic<int>* failed) {
  std::mt19937 rng(thread);
  std::vector<Block> live;
  auto release = [&](size_t i) {
    const Block b = live[i];
    for (size_t k = 0; k < b.size; ++k) {
      if (b.ptr[k] != b.pattern) {
        corrupted->fetch_add(1);
        break;
      }
    }
    bfc->DeallocateRaw(b.ptr);
    live[i] = live.back();
    live.pop_back();
  };
  for (int it = 0; it < iterations; ++it) {
    if (live.size() >= max_live || (!live.empty() && rng() % 2 == 0)) {
      release(rng() % live.size());
      continue;
    }
    const size_t size = fixed_size ? max_bytes : 1 + rng() % max_bytes;
    auto* p = static_cast<unsigned char*>(bfc->AllocateRaw(64, size));
    if (p == nullptr) {
      failed->fetch_add(1);
      continue;
    }
    const auto pattern = static_cast<unsigned char>(thread * 31 + it);
    std::memset(p, pattern, size);
    live.push_back({p, size, pattern});
  }
  while (!live.empty()) release(live.size() - 1);
}

void RunThreads(BFCAllocator* bfc, int iterations, size_t max_bytes, bool fixed_size,
                size_t max_live) {
  std::atomic<int> corrupted{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(Worker, bfc, t, iterations, max_bytes, fixed_size, max_live, &corrupted,
                         &failed);
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(corrupted.load(), 0);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(bfc->GetStats()->bytes_in_use, 0);
  EXPECT_EQ(bfc->num_bad_deallocations(), 0);
}

TEST(BFCAllocatorConcurrencyTest, EightThreadsAllocateWriteVerifyFree) {
  BFCAllocator::Options options;
  options.allow_growth = true;
  BFCAllocator bfc(std::make_unique<test::CappedSubAllocator>(256 * kMiB), 256 * kMiB, options);
  RunThreads(&bfc, 3000, 64 * 1024, /*fixed_size=*/false, 16);
}

TEST(BFCAllocatorConcurrencyTest, ThreadsWaitForEachOthersFreesWhenFull) {
  // 8 threads each holding up to two 100 KiB blocks need more than the 1 MiB
  // limit: allocations wait (AllocatorRetry) for another thread's free. The
  // region holds ten such blocks, so a thread holding one can always proceed
  // once others free theirs.
  BFCAllocator::Options options;
  options.allow_growth = false;
  options.retry_timeout = absl::Seconds(30);
  BFCAllocator bfc(std::make_unique<test::CappedSubAllocator>(kMiB), kMiB, options);
  RunThreads(&bfc, 400, 100 * 1024, /*fixed_size=*/true, 2);
}

}  // namespace
}  // namespace minitf
