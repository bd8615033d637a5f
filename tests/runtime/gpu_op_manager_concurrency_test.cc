// GpuOpManager under contention: producers enqueue from many threads while
// the step boundary, the active flag and the policy change under them.
// Runs under ThreadSanitizer in `make check`.
#include <atomic>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/gpu_op_manager.h"

namespace minitf {
namespace {

constexpr int kProducers = 8;
constexpr int kLaunchesPerProducer = 400;
constexpr int kLaunches = kProducers * kLaunchesPerProducer;

TEST(GpuOpManagerConcurrencyTest, EveryLaunchRunsExactlyOnceWhileStepsAndFlagsChange) {
  std::vector<std::atomic<int>> runs(kLaunches);
  for (auto& r : runs) r.store(0);
  // Per-producer order must hold: each producer's launches run in the order
  // it enqueued them.
  std::vector<int> last_run(kProducers, -1);  // Touched only by the manager thread.
  std::atomic<bool> out_of_order{false};
  std::vector<std::pair<absl::Duration, GpuOpManager::StepCounters>> steps;
  int64_t total_launches = 0;
  {
    GpuOpManager manager("/device:GPU:0");
    manager.SetActive(true);
    std::atomic<bool> producing{true};
    std::thread controller([&] {
      std::mt19937 rng(7);
      absl::Duration budget;
      while (producing.load()) {
        const absl::Duration next = absl::Microseconds(rng() % 200);
        GpuOpManager::StepCounters ended =
            manager.BeginStep(next, static_cast<int>(rng() % 20));
        steps.emplace_back(budget, ended);
        budget = next;
        switch (rng() % 4) {
          case 0:
            manager.SetActive(!manager.active());
            break;
          case 1:
            manager.SetPolicy(rng() % 2 == 0 ? PacingPolicy::kAntMan : PacingPolicy::kPrecise);
            break;
          default:
            break;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 300));
      }
    });
    std::vector<std::thread> producers;
    for (int p = 0; p < kProducers; ++p) {
      producers.emplace_back([&, p] {
        for (int i = 0; i < kLaunchesPerProducer; ++i) {
          const int id = p * kLaunchesPerProducer + i;
          manager.Enqueue([&, p, i, id] {
            runs[id].fetch_add(1);
            if (last_run[p] != i - 1) out_of_order.store(true);
            last_run[p] = i;
          });
          if (i % 10 == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
      });
    }
    for (std::thread& t : producers) t.join();
    producing.store(false);
    controller.join();
    // The destructor runs whatever is still queued.
    manager.SetActive(true);
    manager.BeginStep(absl::Hours(1), 1);
    total_launches = manager.total_launches();
  }
  for (int id = 0; id < kLaunches; ++id) ASSERT_EQ(runs[id].load(), 1) << "launch " << id;
  EXPECT_FALSE(out_of_order.load());
  EXPECT_LE(total_launches, kLaunches);
  // Every step's budget was either inserted as slots or left unused.
  for (const auto& [budget, counters] : steps) {
    EXPECT_EQ(counters.slots + counters.unused_budget, budget);
    EXPECT_GE(counters.unused_budget, absl::ZeroDuration());
  }
}

TEST(GpuOpManagerConcurrencyTest, CountersAreConsistentWhenReadConcurrently) {
  std::atomic<int> ran{0};
  GpuOpManager manager("/device:GPU:0");
  manager.SetActive(true);
  manager.SetPolicy(PacingPolicy::kPrecise);
  manager.BeginStep(absl::Milliseconds(2), 100);
  std::atomic<bool> reading{true};
  std::thread reader([&] {
    int64_t previous = 0;
    absl::Duration previous_slots;
    while (reading.load()) {
      const int64_t launches = manager.total_launches();
      const absl::Duration slots = manager.total_slots();
      EXPECT_GE(launches, previous);
      EXPECT_GE(slots, previous_slots);
      previous = launches;
      previous_slots = slots;
    }
  });
  for (int i = 0; i < 100; ++i) manager.Enqueue([&] { ran.fetch_add(1); });
  while (ran.load() < 100) std::this_thread::yield();
  reading.store(false);
  reader.join();
  EXPECT_EQ(ran.load(), 100);
  const GpuOpManager::StepCounters step = manager.BeginStep(absl::ZeroDuration(), 0);
  EXPECT_EQ(step.launches, 100);
  EXPECT_EQ(step.slots + step.unused_budget, absl::Milliseconds(2));
}

}  // namespace
}  // namespace minitf
