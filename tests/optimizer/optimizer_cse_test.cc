// OptimizeCSE (optimizer/optimizer_cse.h) on the cases of TensorFlow's
// optimizer_cse_test: equal nodes merged, chains of them in one walk,
// nodes that differ in op, attrs, input order, control inputs or device
// kept apart, stateful nodes and placeholders never merged, a filter
// respected; and through a session (GraphOptions): the duplicates of a
// graph run once at the default L1, each at L0, once again at L0 with
// do_common_subexpression_elimination, and the fetched values are the same.
#include "optimizer/optimizer_cse.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "optimizer/graph_optimizer.h"
#include "session/session.h"
#include "tests/testlib/graph_testing.h"

namespace minitf {
namespace {

using test::ToGraph;
using test::CountOps;
using test::InputOf;

TEST(OptimizerCseTest, MergesEqualNodes) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT);
  auto a = ops::Mul(root.WithOpName("a"), x, y);
  auto b = ops::Mul(root.WithOpName("b"), x, y);
  ops::Add(root.WithOpName("c"), a, b);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(OptimizeCSE(g.get(), nullptr));
  EXPECT_EQ(CountOps(*g, "Mul"), 1);
  EXPECT_EQ(g->FindNode("b"), nullptr);  // The first in topological order stays.
  EXPECT_EQ(InputOf(*g, "c", 0), g->FindNode("a"));
  EXPECT_EQ(InputOf(*g, "c", 1), g->FindNode("a"));
  EXPECT_FALSE(OptimizeCSE(g.get(), nullptr));  // Nothing left to merge.
}

TEST(OptimizerCseTest, MergesThreeEqualNodesAndTheirConsumersInOneWalk) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT);
  std::vector<Output> squares;
  for (int i = 0; i < 3; ++i) {
    auto m = ops::Mul(root.WithOpName("m" + std::to_string(i)), x, y);
    squares.push_back(ops::Square(root.WithOpName("s" + std::to_string(i)), m));
  }
  ops::AddN(root.WithOpName("sum"), squares);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(OptimizeCSE(g.get(), nullptr));
  EXPECT_EQ(CountOps(*g, "Mul"), 1);
  EXPECT_EQ(CountOps(*g, "Square"), 1);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(InputOf(*g, "sum", i), InputOf(*g, "sum", 0));
}

TEST(OptimizerCseTest, KeepsNodesThatDiffer) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT);
  ops::Sub(root.WithOpName("x_minus_y"), x, y);
  ops::Sub(root.WithOpName("y_minus_x"), y, x);  // Input order.
  ops::Mul(root.WithOpName("mul"), x, y);        // Op.
  ops::Add(root.WithOpName("add_xy"), x, y);
  ops::Add(root.WithOpName("add_yx"), y, x);  // Not sorted, even for Add.
  ops::Cast(root.WithOpName("to_int"), x, DT_INT32);
  ops::Cast(root.WithOpName("to_double"), x, DT_DOUBLE);  // Attrs.
  ops::Identity(root.WithOpName("on_cpu0").WithDevice("/device:CPU:0"), x);
  ops::Identity(root.WithOpName("anywhere"), x);  // Requested device.
  std::unique_ptr<Graph> g = ToGraph(root);
  const int before = g->num_op_nodes();
  EXPECT_FALSE(OptimizeCSE(g.get(), nullptr));
  EXPECT_EQ(g->num_op_nodes(), before);
}

TEST(OptimizerCseTest, ConstantsMergeByTheirBits) {
  Scope root = Scope::NewRootScope();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<Output> values = {
      ops::Const(root.WithOpName("two_a"), Tensor::FromVector<float>({2.0f, 3.0f})),
      ops::Const(root.WithOpName("two_b"), Tensor::FromVector<float>({2.0f, 3.0f})),
      ops::Const(root.WithOpName("other"), Tensor::FromVector<float>({2.0f, 4.0f})),
      ops::Const(root.WithOpName("nan_a"), Tensor::FromVector<float>({nan, 0.0f})),
      ops::Const(root.WithOpName("nan_b"), Tensor::FromVector<float>({nan, 0.0f})),
      ops::Const(root.WithOpName("negative_zero"), Tensor::FromVector<float>({nan, -0.0f})),
      ops::Const(root.WithOpName("int"), Tensor::FromVector<int32_t>({2, 3}))};
  for (size_t i = 0; i < values.size(); ++i) {
    ops::Identity(root.WithOpName("use" + std::to_string(i)), values[i]);
  }
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(OptimizeCSE(g.get(), nullptr));
  EXPECT_EQ(CountOps(*g, "Const"), 5);
  EXPECT_EQ(g->FindNode("two_b"), nullptr);
  EXPECT_EQ(g->FindNode("nan_b"), nullptr);  // NaN equals itself bit for bit.
  EXPECT_NE(g->FindNode("negative_zero"), nullptr);
  EXPECT_NE(g->FindNode("other"), nullptr);
  EXPECT_NE(g->FindNode("int"), nullptr);
  // Their Identities merged with them.
  EXPECT_EQ(CountOps(*g, "Identity"), 5);
}

TEST(OptimizerCseTest, ControlInputsCountAsASet) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto p = ops::Square(root.WithOpName("p"), x);
  auto q = ops::Neg(root.WithOpName("q"), x);
  ops::Identity(root.WithOpName("after_p").WithControlDependencies({p}), x);
  ops::Identity(root.WithOpName("after_q").WithControlDependencies({q}), x);
  ops::Identity(root.WithOpName("after_pq").WithControlDependencies({p, q}), x);
  ops::Identity(root.WithOpName("after_qp").WithControlDependencies({q, p}), x);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(OptimizeCSE(g.get(), nullptr));
  EXPECT_NE(g->FindNode("after_p"), nullptr);
  EXPECT_NE(g->FindNode("after_q"), nullptr);
  EXPECT_EQ(CountOps(*g, "Identity"), 3);
}

TEST(OptimizerCseTest, NeverMergesStatefulNodesOrPlaceholders) {
  Scope root = Scope::NewRootScope();
  auto shape = ops::Const(root.WithOpName("shape"), Tensor::FromVector<int32_t>({2}));
  auto r1 = ops::RandomUniform(root.WithOpName("r1"), shape, DT_FLOAT);
  auto r2 = ops::RandomUniform(root.WithOpName("r2"), shape, DT_FLOAT);
  auto x1 = ops::Placeholder(root.WithOpName("x1"), DT_FLOAT);
  auto x2 = ops::Placeholder(root.WithOpName("x2"), DT_FLOAT);
  ops::AddN(root.WithOpName("sum"), {r1, r2, x1, x2});
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_FALSE(OptimizeCSE(g.get(), nullptr));
  EXPECT_EQ(CountOps(*g, "RandomUniform"), 2);
  EXPECT_EQ(CountOps(*g, "Placeholder"), 2);
}

TEST(OptimizerCseTest, AFilterKeepsTheNodesItRefuses) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto a = ops::Neg(root.WithOpName("a"), x);
  auto b = ops::Neg(root.WithOpName("b"), x);
  ops::Add(root.WithOpName("c"), a, b);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_FALSE(OptimizeCSE(g.get(), [](const Node* n) { return n->type_string() != "Neg"; }));
  EXPECT_EQ(CountOps(*g, "Neg"), 2);
}

TEST(OptimizerCseTest, AttrValuesCompareExactly) {
  EXPECT_TRUE(SameAttrValue(AttrValue(1.5f), AttrValue(1.5f)));
  EXPECT_FALSE(SameAttrValue(AttrValue(0.0f), AttrValue(-0.0f)));
  EXPECT_FALSE(SameAttrValue(AttrValue(int64_t{1}), AttrValue(1.0f)));  // Kinds differ.
  EXPECT_TRUE(SameAttrValue(AttrValue(std::vector<int64_t>{1, 2}),
                            AttrValue(std::vector<int64_t>{1, 2})));
  EXPECT_FALSE(SameAttrValue(AttrValue(Tensor::FromVector<float>({1.0f})),
                             AttrValue(Tensor::FromVector<float>({1.0f}, TensorShape({1, 1})))));
}

// The number of nodes of each name that ran in one traced step of `fetch`.
struct TracedRun {
  std::vector<std::string> ran;
  std::vector<Tensor> out;
};

TracedRun RunTraced(const GraphDef& def, const OptimizerOptions& optimizer) {
  SessionOptions options;
  options.config.device_count = {{"GPU", 0}};
  options.config.graph_options.optimizer_options = optimizer;
  // Grappler's switches off: optimizer_options alone decide.
  options.config.graph_options.rewrite_options.disable_meta_optimizer = true;
  std::unique_ptr<Session> session = *NewSession(options);
  EXPECT_TRUE(session->Create(def).ok());
  RunOptions run_options;
  run_options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  TracedRun result;
  const absl::Status s = session->Run(run_options, {{"x", Tensor::FromVector<float>({1, 2})}},
                                      {"c:0", "a:0", "b:0"}, {}, &result.out, &metadata);
  EXPECT_TRUE(s.ok()) << s;
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
    for (const NodeExecStats& node : dev.node_stats) result.ran.push_back(node.node_name);
  }
  return result;
}

TEST(OptimizerCseTest, TheSessionRunsDuplicatesOnceAtL1AndEachAtL0) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto a = ops::Mul(root.WithOpName("a"), x, 3.0f);
  auto b = ops::Mul(root.WithOpName("b"), x, 3.0f);
  ops::Add(root.WithOpName("c"), a, b);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto ran = [](const TracedRun& r, const std::string& name) {
    return std::count(r.ran.begin(), r.ran.end(), name);
  };
  OptimizerOptions l1;
  OptimizerOptions l0;
  l0.opt_level = OptimizerOptions::L0;
  OptimizerOptions l0_cse = l0;
  l0_cse.do_common_subexpression_elimination = true;
  for (const auto& [options, merged] :
       std::vector<std::pair<OptimizerOptions, bool>>{{l1, true}, {l0, false}, {l0_cse, true}}) {
    SCOPED_TRACE(merged);
    const TracedRun r = RunTraced(def, options);
    ASSERT_EQ(r.out.size(), 3u);
    EXPECT_EQ(r.out[0].flat<float>()(1), 12.0f);
    // Fetching either duplicate still gives its value.
    EXPECT_EQ(r.out[1].flat<float>()(0), 3.0f);
    EXPECT_EQ(r.out[2].flat<float>()(1), 6.0f);
    EXPECT_EQ(ran(r, "a") + ran(r, "b"), merged ? 1 : 2);
  }
}

TEST(OptimizerCseTest, GraphOptimizerRunsCseOnlyWhenAsked) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Add(root.WithOpName("c"), ops::Neg(root.WithOpName("a"), x),
           ops::Neg(root.WithOpName("b"), x));
  std::unique_ptr<Graph> g = ToGraph(root);
  ASSERT_TRUE(GraphOptimizer(GraphOptions::Unoptimized()).Optimize(g.get()).ok());
  EXPECT_EQ(CountOps(*g, "Neg"), 2);
  // Grappler's common_subgraph_elimination alone asks for it too.
  GraphOptions grappler = GraphOptions::Unoptimized();
  grappler.rewrite_options.disable_meta_optimizer = false;
  grappler.rewrite_options.constant_folding = RewriterConfig::OFF;
  grappler.rewrite_options.dependency_optimization = RewriterConfig::OFF;
  ASSERT_TRUE(GraphOptimizer(grappler).Optimize(g.get()).ok());
  EXPECT_EQ(CountOps(*g, "Neg"), 1);
}

}  // namespace
}  // namespace minitf
