// The executor's while-loop frames (PropagatorState), driven directly: no
// session, no placement, scenarios after TensorFlow's executor and
// control-flow tests (dead loops, loop invariants, parallel iterations,
// nested frames, errors inside a frame, step stats inside a loop).
#include <memory>
#include <vector>

#include "device/cpu_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/while_loop.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"
#include "runtime/executor.h"
#include "tests/testlib/executor_util.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

class ExecutorFramesTest : public ::testing::Test {
 protected:
  ExecutorFramesTest() : device_(0, 2, cpu_allocator()), pool_("frames_test", 3) {}

  absl::StatusOr<std::vector<Tensor>> Run(const Scope& root, const std::vector<Output>& fetches,
                                          StepStatsCollector* stats = nullptr) {
    MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                            test::NewExecutorForFetches(root, fetches, &device_));
    FunctionCallFrame frame({}, static_cast<int>(fetches.size()));
    CancellationManager cm;
    Executor::Args args;
    args.call_frame = &frame;
    args.cancellation_manager = &cm;
    args.stats_collector = stats;
    args.runner = [this](std::function<void()> fn) { pool_.Schedule(std::move(fn)); };
    MINITF_RETURN_IF_ERROR(executor->Run(args));
    std::vector<Tensor> out;
    MINITF_RETURN_IF_ERROR(frame.ConsumeRetvals(&out));
    return out;
  }

  ThreadPoolDevice device_;
  ThreadPool pool_;
};

// i counts to n; returns {i, sum of 0..n-1}.
std::vector<Output> CountLoop(const Scope& s, Input n, int64_t parallel_iterations = 10) {
  std::vector<Output> out;
  ops::WhileLoopOptions options;
  options.parallel_iterations = parallel_iterations;
  Output limit = ops::Identity(s, n);
  absl::Status status = ops::WhileLoop(
      s, {ops::Const(s, 0), ops::Const(s, 0), limit},
      [](const Scope& c, const std::vector<Output>& v, Output* cond) {
        *cond = ops::Less(c, v[0], v[2]);
        return c.status();
      },
      [](const Scope& b, const std::vector<Output>& v, std::vector<Output>* next) {
        *next = {ops::Add(b, v[0], 1), ops::Add(b, v[1], v[0]), ops::Identity(b, v[2])};
        return b.status();
      },
      &out, options);
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

TEST_F(ExecutorFramesTest, ALoopRunsEveryIterationOnce) {
  for (int64_t parallel : {1, 3, 32}) {
    Scope root = Scope::NewRootScope();
    std::vector<Output> out = CountLoop(root, 100, parallel);
    auto result = Run(root, {out[0], out[1]});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ((*result)[0].scalar<int32_t>()(), 100);
    EXPECT_EQ((*result)[1].scalar<int32_t>()(), 4950);
  }
}

TEST_F(ExecutorFramesTest, ALoopOnTheUntakenSideOfASwitchIsDeadAndItsMergeTakesTheOtherSide) {
  Scope root = Scope::NewRootScope();
  Output pred = ops::Const(root, false);
  ops::SwitchOutputs sw = ops::Switch(root, ops::Const(root, 7), pred);
  // The loop's inputs are dead: every node of its frame is dead, its exits
  // hand deadness out when the frame ends.
  std::vector<Output> loop = CountLoop(root, sw.output_true);
  ops::MergeOutputs merged = ops::Merge(root, {loop[1], ops::Identity(root, sw.output_false)});
  auto result = Run(root, {merged.output, merged.value_index});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)[0].scalar<int32_t>()(), 7);
  EXPECT_EQ((*result)[1].scalar<int32_t>()(), 1);
}

TEST_F(ExecutorFramesTest, TwoIndependentLoopsInOneGraph) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> a = CountLoop(root, 10);
  std::vector<Output> b = CountLoop(root, 20);
  auto result = Run(root, {a[1], b[1], ops::Add(root, a[1], b[1])});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)[0].scalar<int32_t>()(), 45);
  EXPECT_EQ((*result)[1].scalar<int32_t>()(), 190);
  EXPECT_EQ((*result)[2].scalar<int32_t>()(), 235);
}

TEST_F(ExecutorFramesTest, AnInnerLoopGetsAFrameForEveryOuterIteration) {
  // outer i < 5: inner counts to i; total = sum over i of (0 + ... + i-1).
  for (int64_t parallel : {1, 10}) {
    Scope root = Scope::NewRootScope();
    std::vector<Output> out;
    ops::WhileLoopOptions options;
    options.parallel_iterations = parallel;
    ASSERT_TRUE(ops::WhileLoop(
                    root, {ops::Const(root, 0), ops::Const(root, 0)},
                    [](const Scope& c, const std::vector<Output>& v, Output* cond) {
                      *cond = ops::Less(c, v[0], 5);
                      return c.status();
                    },
                    [](const Scope& b, const std::vector<Output>& v, std::vector<Output>* next) {
                      std::vector<Output> inner = CountLoop(b, v[0]);
                      *next = {ops::Add(b, v[0], 1), ops::Add(b, v[1], inner[1])};
                      return b.status();
                    },
                    &out, options)
                    .ok());
    auto result = Run(root, {out[1]});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ((*result)[0].scalar<int32_t>()(), 0 + 0 + 1 + 3 + 6);
  }
}

TEST_F(ExecutorFramesTest, StepStatsRecordEveryIterationsNodes) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> out = CountLoop(root, 4);
  StepStatsCollector collector;
  auto result = Run(root, {out[1]}, &collector);
  ASSERT_TRUE(result.ok()) << result.status();
  StepStats stats;
  collector.Finalize(&stats);
  ASSERT_EQ(stats.dev_stats.size(), 1u);
  int next_iterations = 0;
  for (const NodeExecStats& n : stats.dev_stats[0].node_stats) {
    if (n.op == "NextIteration") ++next_iterations;
    EXPECT_GT(n.scheduled_micros, 0) << n.node_name;
  }
  // Three loop variables, four iterations that continue, one that exits
  // (its NextIterations are dead and do not run).
  EXPECT_EQ(next_iterations, 3 * 4);
}

TEST_F(ExecutorFramesTest, AnExitOutsideALoopIsRejectedWithTheNode) {
  Scope root = Scope::NewRootScope();
  Output exit = OpBuilder(root.WithOpName("stray_exit"), "Exit").Input(ops::Const(root, 1))
                    .Finalize1();
  auto result = Run(root, {exit});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("stray_exit"));
}

}  // namespace
}  // namespace minitf
