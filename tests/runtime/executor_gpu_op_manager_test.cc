// The executor's AntMan pacing hook: on a device whose GpuOpManager is
// active, async kernels are launched from the manager's queue, and so are
// synchronous expensive ones where the manager paces them (a GPU device,
// whose CUDA kernels are synchronous launches).
#include <memory>

#include "absl/strings/str_cat.h"
#include "device/cpu_device.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "runtime/executor.h"
#include "runtime/gpu_op_manager.h"
#include "runtime/graph.h"
#include "tests/testlib/executor_util.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

// A CPU device that also owns a GpuOpManager, standing in for a GPU device
// (the test ops have CPU kernels).
class PacedDevice : public ThreadPoolDevice {
 public:
  explicit PacedDevice(bool paces_sync_kernels = false)
      : ThreadPoolDevice(0, 2, cpu_allocator()), manager_(name(), paces_sync_kernels) {}
  GpuOpQueue* gpu_op_queue() override { return &manager_; }
  GpuOpManager& manager() { return manager_; }

 private:
  GpuOpManager manager_;
};

class ExecutorGpuOpManagerTest : public ::testing::Test {
 protected:
  explicit ExecutorGpuOpManagerTest(bool paces_sync_kernels = false)
      : device_(paces_sync_kernels), pool_("inter_op_test", 2) {}

  absl::Status Build(const Scope& root, const std::vector<Output>& fetches) {
    num_retvals_ = fetches.size();
    auto executor = test::NewExecutorForFetches(root, fetches, &device_);
    if (!executor.ok()) return executor.status();
    executor_ = *std::move(executor);
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<Tensor>> RunStep(StepStatsCollector* stats = nullptr) {
    FunctionCallFrame frame({}, num_retvals_);
    CancellationManager cm;
    Executor::Args args;
    args.step_id = ++step_;
    args.call_frame = &frame;
    args.cancellation_manager = &cm;
    args.stats_collector = stats;
    args.runner = [this](std::function<void()> fn) { pool_.Schedule(std::move(fn)); };
    if (absl::Status s = executor_->Run(args); !s.ok()) return s;
    std::vector<Tensor> out;
    if (absl::Status s = frame.ConsumeRetvals(&out); !s.ok()) return s;
    return out;
  }

  Output AsyncIdentity(const Scope& s, Input x) {
    return OpBuilder(s, "_TestAsyncIdentity").Input(x).Finalize1();
  }
  Output Increment(const Scope& s, Input x) {
    return OpBuilder(s, "_TestIncrement").Input(x).Finalize1();
  }

  // Three chains of (async identity, increment) x 4 from one constant,
  // summed pairwise: 12 async launches per step; fetches 3 * (1 + 4).
  absl::Status BuildTwelveAsyncLaunches() {
    Scope root = Scope::NewRootScope();
    Output x = ops::Const(root, Tensor::Scalar<int32_t>(1));
    std::vector<Output> chains;
    for (int c = 0; c < 3; ++c) {
      Output y = x;
      for (int i = 0; i < 4; ++i) y = Increment(root, AsyncIdentity(root, y));
      chains.push_back(y);
    }
    Output sum = ops::Add(root, ops::Add(root, chains[0], chains[1]), chains[2]);
    return Build(root, {sum});
  }

  PacedDevice device_;
  ThreadPool pool_;
  std::unique_ptr<Executor> executor_;
  size_t num_retvals_ = 0;
  int64_t step_ = 0;
};

TEST_F(ExecutorGpuOpManagerTest, ActiveManagerLaunchesEveryAsyncKernel) {
  ASSERT_TRUE(BuildTwelveAsyncLaunches().ok());
  device_.manager().SetActive(true);
  for (int step = 1; step <= 3; ++step) {
    auto out = RunStep();
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].scalar<int32_t>()(), 15);
    EXPECT_EQ(device_.manager().total_launches(), 12 * step);
  }
}

TEST_F(ExecutorGpuOpManagerTest, IdleSlotsDelayButDoNotChangeTheResult) {
  ASSERT_TRUE(BuildTwelveAsyncLaunches().ok());
  GpuOpManager& manager = device_.manager();
  manager.SetActive(true);
  for (PacingPolicy policy : {PacingPolicy::kAntMan, PacingPolicy::kPrecise}) {
    manager.SetPolicy(policy);
    manager.BeginStep(absl::Milliseconds(6), 12);
    StepStatsCollector collector;
    auto out = RunStep(&collector);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].scalar<int32_t>()(), 15);
    const GpuOpManager::StepCounters step = manager.BeginStep(absl::ZeroDuration(), 0);
    EXPECT_EQ(step.launches, 12) << PacingPolicyName(policy);
    EXPECT_GT(step.slots, absl::ZeroDuration()) << PacingPolicyName(policy);
    EXPECT_EQ(step.slots + step.unused_budget, absl::Milliseconds(6));
    // Every node's times stay ordered with the slot between its start and
    // its launch.
    StepStats stats;
    collector.Finalize(&stats);
    ASSERT_EQ(stats.dev_stats.size(), 1u);
    for (const NodeExecStats& n : stats.dev_stats[0].node_stats) {
      EXPECT_LE(0, n.op_start_rel_micros) << n.node_name;
      EXPECT_LE(n.op_start_rel_micros, n.op_end_rel_micros) << n.node_name;
      EXPECT_LE(n.op_end_rel_micros, n.all_end_rel_micros) << n.node_name;
    }
  }
}

TEST_F(ExecutorGpuOpManagerTest, SyncKernelsAreNotPacedUnlessTheQueueSaysSo) {
  Scope root = Scope::NewRootScope();
  Output y = OpBuilder(root, "_TestExpensiveIncrement")
                 .Input(ops::Const(root, Tensor::Scalar<int32_t>(1)))
                 .Finalize1();
  ASSERT_TRUE(Build(root, {y}).ok());
  device_.manager().SetActive(true);
  auto out = RunStep();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].scalar<int32_t>()(), 2);
  EXPECT_EQ(device_.manager().total_launches(), 0);
}

TEST_F(ExecutorGpuOpManagerTest, InactiveManagerIsBypassed) {
  ASSERT_TRUE(BuildTwelveAsyncLaunches().ok());
  auto out = RunStep();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].scalar<int32_t>()(), 15);
  EXPECT_EQ(device_.manager().total_launches(), 0);
}

TEST_F(ExecutorGpuOpManagerTest, AnErrorStillCancelsQueuedAsyncWork) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Tensor::Scalar<int32_t>(1));
  Output blocked = OpBuilder(root, "_TestBlockUntilCancelled").Input(x).Finalize1();
  Output bad = OpBuilder(root, "_TestFail").Input(AsyncIdentity(root, x)).Finalize1();
  ASSERT_TRUE(Build(root, {blocked, bad}).ok());
  device_.manager().SetActive(true);
  device_.manager().BeginStep(absl::Milliseconds(2), 2);
  auto out = RunStep();
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kAborted) << out.status();
  // AsyncIdentity launched before _TestFail could fail; whether the blocked
  // op launched too depends on which thread ran first (under load, the
  // failure may cancel the step before it does). Either way the step ended.
  EXPECT_GE(device_.manager().total_launches(), 1);
  EXPECT_LE(device_.manager().total_launches(), 2);
}

class ExecutorSyncPacingTest : public ExecutorGpuOpManagerTest {
 protected:
  ExecutorSyncPacingTest() : ExecutorGpuOpManagerTest(/*paces_sync_kernels=*/true) {}
};

TEST_F(ExecutorSyncPacingTest, SyncExpensiveKernelsGoThroughTheQueueToo) {
  // Three expensive synchronous increments and one async identity are
  // launches; the constant and the cheap increment are not.
  Scope root = Scope::NewRootScope();
  Output y = ops::Const(root, Tensor::Scalar<int32_t>(1));
  for (int i = 0; i < 3; ++i) y = OpBuilder(root, "_TestExpensiveIncrement").Input(y).Finalize1();
  y = Increment(root, AsyncIdentity(root, y));
  ASSERT_TRUE(Build(root, {y}).ok());
  GpuOpManager& manager = device_.manager();
  manager.SetActive(true);
  for (PacingPolicy policy : {PacingPolicy::kAntMan, PacingPolicy::kPrecise}) {
    manager.SetPolicy(policy);
    manager.BeginStep(absl::Milliseconds(4), 4);
    auto out = RunStep();
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].scalar<int32_t>()(), 5);
    const GpuOpManager::StepCounters step = manager.BeginStep(absl::ZeroDuration(), 0);
    EXPECT_EQ(step.launches, 4) << PacingPolicyName(policy);
    EXPECT_GT(step.slots, absl::ZeroDuration()) << PacingPolicyName(policy);
    EXPECT_EQ(step.slots + step.unused_budget, absl::Milliseconds(4));
  }
  // Inactive: everything runs inline.
  manager.SetActive(false);
  const int64_t before = manager.total_launches();
  auto out = RunStep();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].scalar<int32_t>()(), 5);
  EXPECT_EQ(manager.total_launches(), before);
}

TEST_F(ExecutorSyncPacingTest, AFailingSyncKernelLaunchedFromTheQueueFailsTheStep) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Tensor::Scalar<int32_t>(1));
  Output bad = OpBuilder(root, "_TestFail")
                   .Input(OpBuilder(root, "_TestExpensiveIncrement").Input(x).Finalize1())
                   .Finalize1();
  ASSERT_TRUE(Build(root, {bad}).ok());
  device_.manager().SetActive(true);
  auto out = RunStep();
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kAborted) << out.status();
  // AsyncIdentity launched before _TestFail could fail; whether the blocked
  // op launched too depends on which thread ran first (under load, the
  // failure may cancel the step before it does). Either way the step ended.
  EXPECT_GE(device_.manager().total_launches(), 1);
  EXPECT_LE(device_.manager().total_launches(), 2);
}

}  // namespace
}  // namespace minitf
