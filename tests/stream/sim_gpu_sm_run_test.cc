// RunOnSmPool (sim_gpu_sm_run.h): how a kernel's thread waits its turn on
// the SM pool, here with a pool of its own and one thread.
#include "stream/sim_gpu/sim_gpu_sm_run.h"

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace minitf::se {
namespace {

TEST(SmRunTest, ADeferringKernelSleepsThroughTheOthersWorkAndJoinsAfterTheWindow) {
  SmPoolState pool;
  pool.Init({.sm_count = 100, .share = SimGPUOptions::Share::kMps, .drain_ns = 0});
  const int64_t now = absl::ToUnixNanos(absl::Now());
  constexpr int64_t kMs = 1'000'000;
  const int other = pool.Add({.context = 1, .width = 100, .work_ns = 3.0 * kMs}, now);

  // The wake-up channel wakes a waiter at every kernel of the others; a
  // deferring kernel must not sleep on it while they are busy.
  int waits_while_others_busy = 0;
  const SmWaitOps ops{
      .wait =
          [&](absl::Duration timeout) {
            if (pool.OthersBusy(2)) ++waits_while_others_busy;
            absl::SleepFor(timeout);
          },
      .wake_all = [] {},
      .unlocked = [](const std::function<void()>& f) { f(); },
  };
  SmRequest request{.context = 2, .width = 100, .work_ns = 1.0 * kMs};
  request.defers = true;
  request.defer_idle_ns = 1 * kMs;
  const SmRunResult result = RunOnSmPool(&pool, request, absl::FromUnixNanos(now), nullptr,
                                         AfterBody(), ops);
  EXPECT_EQ(waits_while_others_busy, 0);
  ASSERT_EQ(pool.kernel(other).state, SmKernel::State::kDone);
  // It joined once the other had had no kernel for the window, and ran alone.
  EXPECT_GE(absl::ToUnixNanos(result.end), pool.kernel(other).end_ns + 2 * kMs);
}

}  // namespace
}  // namespace minitf::se
