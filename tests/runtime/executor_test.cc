#include "runtime/executor.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "device/cpu_device.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "runtime/graph.h"
#include "tests/testlib/executor_util.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

// Builds an executor for `root`'s graph on a private CPU device, with a
// _Retval per fetch and an _Arg per feed given as (node to replace, index).
class ExecutorTest : public ::testing::Test {
 protected:
  ExecutorTest() : device_(0, 2, cpu_allocator()), pool_("inter_op_test", 2) {}

  absl::Status Build(const Scope& root, const std::vector<Output>& fetches) {
    num_retvals_ = fetches.size();
    auto executor = test::NewExecutorForFetches(root, fetches, &device_);
    if (!executor.ok()) return executor.status();
    executor_ = *std::move(executor);
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<Tensor>> RunStep(std::vector<Tensor> args = {},
                                              StepStatsCollector* stats = nullptr) {
    FunctionCallFrame frame(std::move(args), num_retvals_);
    CancellationManager cm;
    Executor::Args exec_args;
    exec_args.step_id = ++step_;
    exec_args.call_frame = &frame;
    exec_args.cancellation_manager = &cm;
    exec_args.stats_collector = stats;
    exec_args.runner = [this](std::function<void()> fn) { pool_.Schedule(std::move(fn)); };
    if (absl::Status s = executor_->Run(exec_args); !s.ok()) return s;
    std::vector<Tensor> out;
    if (absl::Status s = frame.ConsumeRetvals(&out); !s.ok()) return s;
    return out;
  }

  NodeDef ArgDef(const std::string& name, DataType t, int index) {
    NodeDef d;
    d.name = name;
    d.op = "_Arg";
    d.attr["T"] = t;
    d.attr["index"] = static_cast<int64_t>(index);
    return d;
  }

  ThreadPoolDevice device_;
  ThreadPool pool_;
  std::unique_ptr<Executor> executor_;
  size_t num_retvals_ = 0;
  int64_t step_ = 0;
};

Output Increment(const Scope& s, Input x, bool expensive = false) {
  return OpBuilder(s, expensive ? "_TestExpensiveIncrement" : "_TestIncrement")
      .Input(x)
      .Finalize1();
}

TEST_F(ExecutorTest, ChainOfCheapAndExpensiveNodesComputesTheSum) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Tensor::Scalar<int32_t>(0));
  for (int i = 0; i < 100; ++i) x = Increment(root, x, /*expensive=*/i % 3 == 0);
  ASSERT_TRUE(Build(root, {x}).ok());
  auto out = RunStep();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].scalar<int32_t>()(), 100);
  // The executor is reusable: a second step gives the same answer.
  out = RunStep();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].scalar<int32_t>()(), 100);
}

TEST_F(ExecutorTest, FanOutFanInDeliversEveryBranch) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Tensor::Scalar<int32_t>(5));
  std::vector<Output> branches;
  for (int i = 0; i < 20; ++i) branches.push_back(Increment(root, x, /*expensive=*/true));
  ASSERT_TRUE(Build(root, branches).ok());
  auto out = RunStep();
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 20u);
  for (const Tensor& t : *out) EXPECT_EQ(t.scalar<int32_t>()(), 6);
}

TEST_F(ExecutorTest, FirstErrorAbortsTheStepAndNamesTheNode) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Tensor::Scalar<int32_t>(1));
  Output bad = OpBuilder(root.WithOpName("broken"), "_TestFail")
                   .Input(x)
                   .Attr("message", "deliberate")
                   .Finalize1();
  Output after = Increment(root, bad);
  ASSERT_TRUE(Build(root, {after}).ok());
  auto out = RunStep();
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kAborted);
  EXPECT_NE(out.status().message().find("broken"), absl::string_view::npos) << out.status();
  EXPECT_NE(out.status().message().find("deliberate"), absl::string_view::npos);
}

TEST_F(ExecutorTest, ErrorCancelsOutstandingAsyncWork) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Tensor::Scalar<int32_t>(1));
  Output blocked = OpBuilder(root, "_TestBlockUntilCancelled").Input(x).Finalize1();
  Output slow = OpBuilder(root, "_TestAsyncIdentity").Input(x).Attr("delay_ms", 20).Finalize1();
  Output bad = OpBuilder(root, "_TestFail").Input(slow).Finalize1();
  ASSERT_TRUE(Build(root, {blocked, bad}).ok());
  // Without cancellation the blocked node would never finish.
  auto out = RunStep();
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kAborted) << out.status();
}

TEST_F(ExecutorTest, AsyncKernelsCompleteOnOtherThreads) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Tensor::Scalar<int32_t>(41));
  Output a = OpBuilder(root, "_TestAsyncIdentity").Input(x).Attr("delay_ms", 5).Finalize1();
  Output b = Increment(root, a);
  ASSERT_TRUE(Build(root, {b}).ok());
  auto out = RunStep();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].scalar<int32_t>()(), 42);
}

TEST_F(ExecutorTest, SwitchAndMergeRunOnlyTheTakenBranch) {
  // cond(pred, x + 1 (expensive), x + 1 + 1) through Switch/Merge.
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), Tensor::Scalar<int32_t>(10));
  Output pred = ops::Placeholder(root.WithOpName("pred_ph"), DT_BOOL);
  auto sw = ops::Switch(root, x, pred);
  Output t = Increment(root.WithOpName("true_branch"), sw.output_true);
  Output f = Increment(root, Increment(root.WithOpName("false_branch"), sw.output_false));
  auto merged = ops::Merge(root, {t, f});
  ASSERT_TRUE(root.ok()) << root.status();
  // Replace the placeholder with an _Arg so the test can feed pred.
  GraphDef built;
  ASSERT_TRUE(root.ToGraphDef(&built).ok());
  for (NodeDef& n : built.node) {
    if (n.name == "pred_ph") n = ArgDef("pred_ph", DT_BOOL, 0);
  }
  for (size_t i = 0; i < 2; ++i) {
    NodeDef r;
    r.name = absl::StrCat("_retval_", i);
    r.op = "_Retval";
    r.input = {i == 0 ? merged.output.name() : merged.value_index.name()};
    r.attr["T"] = DT_INT32;
    r.attr["index"] = static_cast<int64_t>(i);
    built.node.push_back(r);
  }
  num_retvals_ = 2;
  auto graph = ConvertGraphDefToGraph(built);
  ASSERT_TRUE(graph.ok()) << graph.status();
  LocalExecutorParams params;
  params.device = &device_;
  auto executor = NewLocalExecutor(params, *std::move(graph));
  ASSERT_TRUE(executor.ok()) << executor.status();
  executor_ = *std::move(executor);

  auto yes = RunStep({Tensor::Scalar<bool>(true)});
  ASSERT_TRUE(yes.ok()) << yes.status();
  EXPECT_EQ((*yes)[0].scalar<int32_t>()(), 11);
  EXPECT_EQ((*yes)[1].scalar<int32_t>()(), 0);
  auto no = RunStep({Tensor::Scalar<bool>(false)});
  ASSERT_TRUE(no.ok()) << no.status();
  EXPECT_EQ((*no)[0].scalar<int32_t>()(), 12);
  EXPECT_EQ((*no)[1].scalar<int32_t>()(), 1);
}

TEST_F(ExecutorTest, DeadBranchNodesDoNotRun) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Tensor::Scalar<int32_t>(3));
  Output pred = ops::Const(root, Tensor::Scalar<bool>(true));
  auto sw = ops::Switch(root, x, pred);
  // The false branch would fail if it ran.
  Output f = OpBuilder(root, "_TestFail").Input(sw.output_false).Finalize1();
  Output t = Increment(root, sw.output_true);
  auto merged = ops::Merge(root, {f, t});
  ASSERT_TRUE(Build(root, {merged.output}).ok());
  auto out = RunStep();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].scalar<int32_t>()(), 4);
}

TEST_F(ExecutorTest, StepStatsRecordEveryNodeWithOutputBytes) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Tensor::FromVector<int32_t>({1, 2, 3, 4}));
  Output y = Increment(root.WithOpName("inc"), x);
  ASSERT_TRUE(Build(root, {y}).ok());
  StepStatsCollector collector;
  ASSERT_TRUE(RunStep({}, &collector).ok());
  StepStats stats;
  collector.Finalize(&stats);
  ASSERT_EQ(stats.dev_stats.size(), 1u);
  EXPECT_EQ(stats.dev_stats[0].device, device_.name());
  bool found = false;
  for (const NodeExecStats& n : stats.dev_stats[0].node_stats) {
    EXPECT_LE(n.op_start_rel_micros, n.op_end_rel_micros);
    EXPECT_LE(n.op_end_rel_micros, n.all_end_rel_micros);
    if (n.node_name == "inc") {
      found = true;
      ASSERT_EQ(n.outputs.size(), 1u);
      EXPECT_EQ(n.outputs[0].allocated_bytes, 16);
      EXPECT_EQ(n.outputs[0].shape, "[4]");
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(stats.dev_stats[0].node_stats.size(), 3u);  // Const, inc, _Retval.
}

TEST_F(ExecutorTest, MissingKernelIsReportedAtConstruction) {
  GraphDef def;
  NodeDef n;
  n.name = "needs_bool_inc";
  n.op = "_TestFail";
  n.attr["T"] = DT_INT32;
  NodeDef c;
  c.name = "c";
  c.op = "Const";
  c.attr["dtype"] = DT_INT32;
  c.attr["value"] = Tensor::Scalar<int32_t>(1);
  n.input = {"c"};
  def.node = {c, n};
  auto graph = ConvertGraphDefToGraph(def);
  ASSERT_TRUE(graph.ok());
  LocalExecutorParams params;
  params.device = &device_;
  params.create_kernel = [](const Node& node) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    return absl::NotFoundError(absl::StrCat("no kernel for ", node.name()));
  };
  auto executor = NewLocalExecutor(params, *std::move(graph));
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.status().message().find("no kernel for"), absl::string_view::npos);
}

TEST_F(ExecutorTest, EmptyGraphFinishesImmediately) {
  Scope root = Scope::NewRootScope();
  ASSERT_TRUE(Build(root, {}).ok());
  auto out = RunStep();
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->empty());
}

}  // namespace
}  // namespace minitf
