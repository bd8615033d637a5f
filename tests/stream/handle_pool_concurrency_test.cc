#include <array>
#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "stream/handle_pool.h"

namespace minitf::se {
namespace {

// Handles are indices into `in_use`; `destroyed` counts each handle's ends.
struct FakeLibrary {
  static constexpr int kMax = 64;
  std::atomic<int> next{0};
  std::atomic<bool> fail_next{false};
  std::array<std::atomic<int>, kMax> in_use{};
  std::array<std::atomic<int>, kMax> destroyed{};

  HandlePool<int>::Create Creator() {
    return [this]() -> absl::StatusOr<int> {
      if (fail_next.exchange(false)) return absl::InternalError("CUDNN_STATUS_ALLOC_FAILED");
      return next.fetch_add(1);
    };
  }
  HandlePool<int>::Destroy Destroyer() {
    return [this](int h) { destroyed[h].fetch_add(1); };
  }
};

TEST(HandlePoolTest, AnIdleHandleIsReused) {
  FakeLibrary lib;
  HandlePool<int> pool(lib.Creator(), lib.Destroyer());
  int first = -1;
  {
    absl::StatusOr<HandlePool<int>::Lease> lease = pool.Acquire();
    ASSERT_TRUE(lease.ok()) << lease.status();
    first = lease->get();
  }
  absl::StatusOr<HandlePool<int>::Lease> again = pool.Acquire();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->get(), first);
  EXPECT_EQ(pool.created(), 1);
}

TEST(HandlePoolTest, ConcurrentLeasesHoldDistinctHandles) {
  FakeLibrary lib;
  HandlePool<int> pool(lib.Creator(), lib.Destroyer());
  absl::StatusOr<HandlePool<int>::Lease> a = pool.Acquire();
  absl::StatusOr<HandlePool<int>::Lease> b = pool.Acquire();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->get(), b->get());
  EXPECT_EQ(pool.created(), 2);
}

TEST(HandlePoolTest, ACreationErrorIsReturnedAndThePoolGoesOn) {
  FakeLibrary lib;
  HandlePool<int> pool(lib.Creator(), lib.Destroyer());
  lib.fail_next = true;
  absl::StatusOr<HandlePool<int>::Lease> failed = pool.Acquire();
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(pool.created(), 0);
  absl::StatusOr<HandlePool<int>::Lease> next = pool.Acquire();
  EXPECT_TRUE(next.ok()) << next.status();
}

TEST(HandlePoolTest, AMovedLeaseGivesItsHandleBackOnce) {
  FakeLibrary lib;
  {
    HandlePool<int> pool(lib.Creator(), lib.Destroyer());
    {
      absl::StatusOr<HandlePool<int>::Lease> lease = pool.Acquire();
      ASSERT_TRUE(lease.ok());
      HandlePool<int>::Lease moved = *std::move(lease);
      EXPECT_EQ(moved.get(), 0);
    }
    // Given back once: two leases now need a second handle.
    absl::StatusOr<HandlePool<int>::Lease> a = pool.Acquire();
    absl::StatusOr<HandlePool<int>::Lease> b = pool.Acquire();
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NE(a->get(), b->get());
  }
  EXPECT_EQ(lib.destroyed[0], 1);
  EXPECT_EQ(lib.destroyed[1], 1);
  EXPECT_EQ(lib.next, 2);
}

TEST(HandlePoolConcurrencyTest, NoHandleServesTwoCallersAtOnce) {
  FakeLibrary lib;
  constexpr int kThreads = 8;
  {
    HandlePool<int> pool(lib.Creator(), lib.Destroyer());
    std::atomic<int> overlaps{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < 2000; ++i) {
          absl::StatusOr<HandlePool<int>::Lease> lease = pool.Acquire();
          ASSERT_TRUE(lease.ok());
          if (lib.in_use[lease->get()].fetch_add(1) != 0) overlaps.fetch_add(1);
          lib.in_use[lease->get()].fetch_sub(1);
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(overlaps, 0);
    EXPECT_GE(pool.created(), 1);
    EXPECT_LE(pool.created(), kThreads);
  }
  // The pool destroyed each handle it created, once.
  for (int h = 0; h < lib.next; ++h) EXPECT_EQ(lib.destroyed[h], 1) << "handle " << h;
}

}  // namespace
}  // namespace minitf::se
