#include "allocator/allocator_retry.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "gtest/gtest.h"

namespace minitf {
namespace {

int dummy;

TEST(AllocatorRetryTest, FirstSuccessIsReturnedWithoutWaiting) {
  AllocatorRetry retry;
  int calls = 0;
  void* p = retry.AllocateRaw(
      [&](size_t, size_t, bool) -> void* {
        ++calls;
        return &dummy;
      },
      absl::Seconds(10), 64, 10);
  EXPECT_EQ(p, &dummy);
  EXPECT_EQ(calls, 1);
}

TEST(AllocatorRetryTest, GivesUpAfterTheDeadlineWithOneVerboseTry) {
  AllocatorRetry retry;
  int calls = 0, verbose_calls = 0;
  const auto start = std::chrono::steady_clock::now();
  void* p = retry.AllocateRaw(
      [&](size_t, size_t, bool verbose) -> void* {
        ++calls;
        verbose_calls += verbose;
        return nullptr;
      },
      absl::Milliseconds(60), 64, 10);
  EXPECT_EQ(p, nullptr);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(55));
  EXPECT_EQ(verbose_calls, 1);
  EXPECT_LE(calls, 3);  // no busy polling: nobody freed anything
  EXPECT_EQ(retry.waiters(), 0);
}

TEST(AllocatorRetryTest, ZeroWaitTriesOnceVerbosely) {
  AllocatorRetry retry;
  int calls = 0, verbose_calls = 0;
  EXPECT_EQ(retry.AllocateRaw(
                [&](size_t, size_t, bool verbose) -> void* {
                  ++calls;
                  verbose_calls += verbose;
                  return nullptr;
                },
                absl::ZeroDuration(), 64, 10),
            nullptr);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(verbose_calls, 1);
}

TEST(AllocatorRetryTest, SucceedsSoonAfterANotifiedDeallocation) {
  AllocatorRetry retry;
  std::atomic<bool> freed{false};
  std::thread freer([&] {
    while (retry.waiters() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    freed.store(true);
    retry.NotifyDealloc();
  });
  const auto start = std::chrono::steady_clock::now();
  void* p = retry.AllocateRaw(
      [&](size_t, size_t, bool) -> void* { return freed.load() ? &dummy : nullptr; },
      absl::Seconds(20), 64, 10);
  freer.join();
  EXPECT_EQ(p, &dummy);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
}  // namespace minitf
