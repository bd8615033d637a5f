// The dependency optimizer (optimizer/dependency_optimizer.h) on the cases of
// TensorFlow's RemoveIdentityNodes and Grappler's dependency_optimizer_test:
// an Identity bypassed (its control successors moved to its input), a
// variable's read, a Switch's branch and an Identity on another device kept,
// control inputs moved only when it does not add edges; a NoOp between few
// nodes bypassed, a target NoOp kept; a node only other nodes wait for made
// a NoOp, and not when it reads a Switch's branch; redundant control edges
// removed and needed ones kept; and through a session, a gradient tuple's
// unused gradient of a constant no longer runs, with the same answer.
#include "optimizer/dependency_optimizer.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "optimizer/optimizer_options.h"
#include "session/session.h"
#include "tests/testlib/graph_testing.h"

namespace minitf {
namespace {

using test::ToGraph;
using test::InputOf;

std::vector<std::string> ControlInputsOf(const Graph& graph, const std::string& name) {
  std::vector<std::string> names;
  for (const Edge* e : graph.FindNode(name)->in_edges()) {
    if (e->IsControlEdge() && e->src()->IsOp()) names.push_back(e->src()->name());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(DependencyOptimizerTest, AnIdentityIsBypassed) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto id = ops::Identity(root.WithOpName("id"), ops::Neg(root.WithOpName("neg"), x));
  ops::Square(root.WithOpName("sq"), id);
  ops::Exp(root.WithOpName("after").WithControlDependencies({id}), x);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(RemoveIdentityNodes(g.get(), nullptr));
  EXPECT_EQ(g->FindNode("id"), nullptr);
  EXPECT_EQ(InputOf(*g, "sq", 0)->name(), "neg");
  EXPECT_EQ(ControlInputsOf(*g, "after"), std::vector<std::string>{"neg"});
  EXPECT_FALSE(RemoveIdentityNodes(g.get(), nullptr));
}

TEST(DependencyOptimizerTest, AVariablesReadASwitchsBranchAndACopyToAnotherDeviceStay) {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root.WithOpName("v"), PartialTensorShape({}), DT_FLOAT);
  auto read = ops::Identity(root.WithOpName("read"), v);
  ops::Square(root.WithOpName("use_read"), read);
  auto p = ops::Placeholder(root.WithOpName("p"), DT_BOOL);
  auto sw = ops::Switch(root.WithOpName("sw"), read, p);
  auto branch = ops::Identity(root.WithOpName("branch"), sw.output_true);
  ops::Square(root.WithOpName("use_branch"), branch);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto copy = ops::Identity(root.WithOpName("copy"), x);
  ops::Square(root.WithOpName("use_copy"), copy);
  std::unique_ptr<Graph> g = ToGraph(root);
  for (Node* n : g->op_nodes()) n->set_assigned_device_name("/device:CPU:0");
  g->FindNode("copy")->set_assigned_device_name("/device:CPU:1");
  EXPECT_FALSE(RemoveIdentityNodes(g.get(), nullptr));
  EXPECT_NE(g->FindNode("read"), nullptr);
  EXPECT_NE(g->FindNode("branch"), nullptr);
  EXPECT_NE(g->FindNode("copy"), nullptr);
}

TEST(DependencyOptimizerTest, ControlInputsMoveToAFewConsumersOnly) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto gate = ops::NoOp(root.WithOpName("gate"));
  auto one = ops::Identity(root.WithOpName("one").WithControlDependencies({gate}), x);
  ops::Neg(root.WithOpName("a"), one);
  auto three = ops::Identity(root.WithOpName("three").WithControlDependencies({gate}), x);
  ops::Neg(root.WithOpName("b"), three);
  ops::Exp(root.WithOpName("c"), three);
  ops::Sqrt(root.WithOpName("d"), three);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(RemoveIdentityNodes(g.get(), nullptr));
  // One consumer: 2 inputs x 1 consumer <= 3 edges; three: 2 x 3 > 5.
  EXPECT_EQ(g->FindNode("one"), nullptr);
  EXPECT_EQ(InputOf(*g, "a", 0)->name(), "x");
  EXPECT_EQ(ControlInputsOf(*g, "a"), std::vector<std::string>{"gate"});
  EXPECT_NE(g->FindNode("three"), nullptr);
}

TEST(DependencyOptimizerTest, ANoOpBetweenFewNodesIsBypassedATargetStays) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto a = ops::Neg(root.WithOpName("a"), x);
  auto b = ops::Exp(root.WithOpName("b"), x);
  auto group = ops::NoOp(root.WithOpName("group").WithControlDependencies({a, b}));
  ops::Sqrt(root.WithOpName("after").WithControlDependencies({group}), x);
  ops::NoOp(root.WithOpName("target").WithControlDependencies({a, b}));
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(RemoveNoOps(g.get(), nullptr));
  EXPECT_EQ(g->FindNode("group"), nullptr);
  EXPECT_EQ(ControlInputsOf(*g, "after"), (std::vector<std::string>{"a", "b"}));
  EXPECT_NE(g->FindNode("target"), nullptr);
}

TEST(DependencyOptimizerTest, ANodeOnlyWaitedForBecomesANoOpButNotOnASwitchBranch) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto unused = ops::Sum(root.WithOpName("unused"), ops::Square(root.WithOpName("sq"), x), 0);
  ops::Neg(root.WithOpName("after").WithControlDependencies({unused}), x);
  auto p = ops::Placeholder(root.WithOpName("p"), DT_BOOL);
  auto sw = ops::Switch(root.WithOpName("sw"), x, p);
  auto pivot = ops::Identity(root.WithOpName("pivot"), sw.output_true);
  ops::Const(root.WithOpName("in_branch").WithControlDependencies({pivot}), 1.0f);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(ConvertUnusedToNoOps(g.get(), nullptr));
  EXPECT_EQ(g->FindNode("unused")->type_string(), "NoOp");
  EXPECT_EQ(g->FindNode("sq")->type_string(), "NoOp");  // The chain, in one walk.
  EXPECT_EQ(g->FindNode("pivot")->type_string(), "Identity");
  EXPECT_TRUE(RemoveNoOps(g.get(), nullptr));
  EXPECT_EQ(g->FindNode("unused"), nullptr);
  EXPECT_EQ(ControlInputsOf(*g, "after"), std::vector<std::string>{"x"});
}

TEST(DependencyOptimizerTest, RedundantControlEdgesGoNeededOnesStay) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto a = ops::Neg(root.WithOpName("a"), x);
  auto b = ops::Exp(root.WithOpName("b"), a);
  auto other = ops::Sqrt(root.WithOpName("other"), x);
  ops::Square(root.WithOpName("c").WithControlDependencies({a, other}), b);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(RemoveRedundantControlEdges(g.get(), nullptr));
  EXPECT_EQ(ControlInputsOf(*g, "c"), std::vector<std::string>{"other"});
  EXPECT_FALSE(RemoveRedundantControlEdges(g.get(), nullptr));
}

TEST(DependencyOptimizerSessionTest, TheUnusedGradientOfAConstantNoLongerRuns) {
  // The shape of a gradient tuple: group_deps waits for both gradients of
  // Mul(x, c); only x's is read.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto dy = ops::Placeholder(root.WithOpName("dy"), DT_FLOAT);
  auto c = ops::Const(root.WithOpName("c"), 3.0f);
  auto dx = ops::Mul(root.WithOpName("dx"), dy, c);
  auto dc = ops::Sum(root.WithOpName("dc"), ops::Mul(root.WithOpName("dy_x"), dy, x), 0);
  auto group = ops::NoOp(root.WithOpName("group_deps").WithControlDependencies({dx, dc}));
  ops::Identity(root.WithOpName("dx_gated").WithControlDependencies({group}), dx);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  for (bool optimize : {false, true}) {
    SessionOptions options;
    options.config.device_count["GPU"] = 0;
    if (!optimize) options.config.graph_options = GraphOptions::Unoptimized();
    std::unique_ptr<Session> session = *NewSession(options);
    ASSERT_TRUE(session->Create(def).ok());
    RunOptions run_options;
    run_options.trace_level = RunOptions::FULL_TRACE;
    RunMetadata metadata;
    std::vector<Tensor> out;
    absl::Status s = session->Run(
        run_options, {{"x", Tensor::FromVector<float>({1, 2})}, {"dy", Tensor::FromVector<float>({1, 1})}},
        {"dx_gated:0"}, {}, &out, &metadata);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].flat<float>()(1), 3.0f);
    bool ran_dc = false;
    for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
      for (const NodeExecStats& n : dev.node_stats) ran_dc |= n.node_name == "dc";
    }
    EXPECT_EQ(ran_dc, !optimize);
  }
}

}  // namespace
}  // namespace minitf
