// ConstantFold (optimizer/constant_folding.h) on the cases of TensorFlow's
// constant_folding_test: a chain of constants folded into one Const its
// consumer reads, nothing done for a lone Const, both outputs of a
// two-output node, the `consider` filter, the size limit, control inputs
// carried onto the Const, Shape/Size/Rank of known shapes (and not of
// unknown ones), stateful nodes left alone, a failing kernel left to fail
// when the graph runs; and through a session: a fetched folded node keeps
// its name and value, and a step that fails unoptimized fails with the same
// code, naming the same node, optimized.
#include "optimizer/constant_folding.h"

#include <memory>
#include <string>
#include <vector>

#include "allocator/allocator.h"
#include "device/cpu_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"
#include "session/session.h"
#include "tests/testlib/graph_testing.h"

namespace minitf {
namespace {

using test::ToGraph;
using test::CountOps;
using test::InputOf;

using ::testing::HasSubstr;

// The value of the Const feeding data input i of `name`.
Tensor ConstInput(const Graph& graph, const std::string& name, int i) {
  const Node* src = InputOf(graph, name, i);
  EXPECT_NE(src, nullptr);
  if (src == nullptr) return Tensor();
  EXPECT_EQ(src->type_string(), "Const") << src->name();
  auto it = src->def().attr.find("value");
  if (it == src->def().attr.end()) return Tensor();
  return it->second.tensor();
}

std::vector<std::string> ControlInputsOf(const Node& n) {
  std::vector<std::string> names;
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge() && e->src()->IsOp()) names.push_back(e->src()->name());
  }
  return names;
}

class ConstantFoldingTest : public ::testing::Test {
 protected:
  absl::StatusOr<bool> Fold(Graph* graph, const ConstantFoldingOptions& options = {}) {
    return ConstantFold(options, &host_, graph);
  }
  ThreadPoolDevice host_{0, 1, cpu_allocator()};
};

TEST_F(ConstantFoldingTest, FoldsAChainOfConstantsIntoTheConstItsConsumerReads) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto a = ops::Const(root.WithOpName("a"), {1.0f, 2.0f});
  auto b = ops::Const(root.WithOpName("b"), {3.0f, 4.0f});
  auto sum = ops::Add(root.WithOpName("sum"), a, b);
  auto scaled = ops::Mul(root.WithOpName("scaled"), sum, 2.0f);
  ops::Mul(root.WithOpName("out"), x, scaled);
  std::unique_ptr<Graph> g = ToGraph(root);
  absl::StatusOr<bool> changed = Fold(g.get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const Tensor folded = ConstInput(*g, "out", 1);
  ASSERT_EQ(folded.NumElements(), 2);
  EXPECT_EQ(folded.flat<float>()(0), 8.0f);
  EXPECT_EQ(folded.flat<float>()(1), 12.0f);
  // What only fed the fold is gone; the Const took the folded node's name.
  EXPECT_EQ(g->FindNode("sum"), nullptr);
  EXPECT_EQ(g->FindNode("a"), nullptr);
  EXPECT_EQ(InputOf(*g, "out", 1)->name(), "scaled");
  EXPECT_EQ(CountOps(*g, "Add"), 0);
  EXPECT_EQ(InputOf(*g, "out", 0)->name(), "x");
  // A second fold finds nothing more.
  EXPECT_FALSE(*Fold(g.get()));
}

TEST_F(ConstantFoldingTest, ALoneConstIsNotReplaced) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Mul(root.WithOpName("out"), x, ops::Const(root.WithOpName("c"), 2.0f));
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_FALSE(*Fold(g.get()));
  EXPECT_EQ(InputOf(*g, "out", 1)->name(), "c");
}

TEST_F(ConstantFoldingTest, BothOutputsOfATwoOutputNodeAreFolded) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto halves = ops::Split(root.WithOpName("split"), 0,
                           ops::Const(root.WithOpName("v"), {1.0f, 2.0f, 3.0f, 4.0f}), 2);
  ops::Add(root.WithOpName("first"), x, halves[0]);
  ops::Add(root.WithOpName("second"), x, halves[1]);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(*Fold(g.get()));
  EXPECT_EQ(CountOps(*g, "Split"), 0);
  const Tensor first = ConstInput(*g, "first", 1);
  const Tensor second = ConstInput(*g, "second", 1);
  EXPECT_EQ(first.flat<float>()(1), 2.0f);
  EXPECT_EQ(second.flat<float>()(0), 3.0f);
  EXPECT_NE(InputOf(*g, "first", 1), InputOf(*g, "second", 1));
}

TEST_F(ConstantFoldingTest, TheFilterIsRespected) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Mul(root.WithOpName("out"), x, ops::Neg(root.WithOpName("neg"), 2.0f));
  std::unique_ptr<Graph> g = ToGraph(root);
  ConstantFoldingOptions options;
  options.consider = [](const Node* n) { return n->name() != "neg"; };
  EXPECT_FALSE(*Fold(g.get(), options));
  EXPECT_EQ(InputOf(*g, "out", 1)->name(), "neg");
  EXPECT_EQ(InputOf(*g, "out", 1)->type_string(), "Neg");
}

TEST_F(ConstantFoldingTest, AConstantAboveTheSizeLimitIsNotMade) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto big = ops::Fill(root.WithOpName("big"), ops::Const(root, {256}), 1.0f);
  ops::Mul(root.WithOpName("out"), x, big);
  ConstantFoldingOptions options;
  options.max_constant_size_in_bytes = 256 * sizeof(float) - 1;
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_FALSE(*Fold(g.get(), options));
  EXPECT_EQ(InputOf(*g, "out", 1)->type_string(), "Fill");
  options.max_constant_size_in_bytes = 256 * sizeof(float);
  EXPECT_TRUE(*Fold(g.get(), options));
  EXPECT_EQ(ConstInput(*g, "out", 1).NumElements(), 256);
}

TEST_F(ConstantFoldingTest, TheConstWaitsForTheControlInputsOfWhatItReplaces) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto gate = ops::Neg(root.WithOpName("gate"), x);
  auto c = ops::Const(root.WithOpName("c").WithControlDependencies({gate}), 3.0f);
  auto d = ops::Square(root.WithOpName("d"), c);
  ops::Add(root.WithOpName("out"), x, d);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(*Fold(g.get()));
  const Node* folded = InputOf(*g, "out", 1);
  ASSERT_NE(folded, nullptr);
  EXPECT_EQ(folded->type_string(), "Const");
  EXPECT_EQ(ConstInput(*g, "out", 1).scalar<float>()(), 9.0f);
  EXPECT_EQ(ControlInputsOf(*folded), std::vector<std::string>{"gate"});
}

TEST_F(ConstantFoldingTest, ShapeSizeAndRankOfKnownShapesAreFolded) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                            {.shape = PartialTensorShape({2, 3})});
  auto y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT,
                            {.shape = PartialTensorShape({-1, 3})});
  auto shape = ops::Shape(root.WithOpName("shape"), x);
  auto size = ops::Size(root.WithOpName("size"), x);
  auto rank_y = ops::Rank(root.WithOpName("rank_y"), y);
  auto shape_y = ops::Shape(root.WithOpName("shape_y"), y);
  // Consumers that are not folded themselves.
  auto k = ops::Placeholder(root.WithOpName("k"), DT_INT32);
  ops::Add(root.WithOpName("use_shape"), k, shape);
  ops::Add(root.WithOpName("use_size"), k, size);
  ops::Add(root.WithOpName("use_rank_y"), k, rank_y);
  ops::Add(root.WithOpName("use_shape_y"), k, shape_y);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(*Fold(g.get()));
  const Tensor s = ConstInput(*g, "use_shape", 1);
  ASSERT_EQ(s.NumElements(), 2);
  EXPECT_EQ(s.flat<int32_t>()(0), 2);
  EXPECT_EQ(s.flat<int32_t>()(1), 3);
  EXPECT_EQ(ConstInput(*g, "use_size", 1).scalar<int32_t>()(), 6);
  // y's rank is known, its shape is not.
  EXPECT_EQ(ConstInput(*g, "use_rank_y", 1).scalar<int32_t>()(), 2);
  EXPECT_EQ(InputOf(*g, "use_shape_y", 1)->type_string(), "Shape");
  // The folded Const waits for the tensor whose shape it gives.
  EXPECT_EQ(ControlInputsOf(*InputOf(*g, "use_shape", 1)), std::vector<std::string>{"x"});
}

TEST_F(ConstantFoldingTest, StatefulNodesAreNotFolded) {
  Scope root = Scope::NewRootScope();
  auto r = ops::RandomUniform(root.WithOpName("r"), ops::Const(root, {2}), DT_FLOAT);
  ops::Neg(root.WithOpName("out"), r);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_FALSE(*Fold(g.get()));
  EXPECT_EQ(InputOf(*g, "out", 0)->name(), "r");
}

TEST_F(ConstantFoldingTest, AFailingKernelIsLeftToFailWhenTheGraphRuns) {
  Scope root = Scope::NewRootScope();
  // The shape is only known once folded: the graph builds, its step fails.
  auto two = ops::Add(root.WithOpName("two"), ops::Const(root, {1}), ops::Const(root, {1}));
  auto bad = ops::Reshape(root.WithOpName("bad"), ops::Const(root, {1.0f, 2.0f, 3.0f}), two);
  ops::Neg(root.WithOpName("out"), bad);
  std::unique_ptr<Graph> g = ToGraph(root);
  EXPECT_TRUE(*Fold(g.get()));  // `two` folds; `bad` cannot.
  EXPECT_EQ(InputOf(*g, "out", 0)->name(), "bad");
  EXPECT_EQ(CountOps(*g, "Reshape"), 1);
  EXPECT_EQ(InputOf(*g, "bad", 1)->type_string(), "Const");
}

absl::Status RunOnce(const GraphDef& def, const GraphOptions& graph_options,
                     const std::vector<std::string>& fetches, std::vector<Tensor>* out) {
  SessionOptions options;
  options.config.device_count["GPU"] = 0;
  options.config.graph_options = graph_options;
  std::unique_ptr<Session> session = *NewSession(options);
  MINITF_RETURN_IF_ERROR(session->Create(def));
  return session->Run({}, fetches, {}, out);
}

TEST(ConstantFoldingSessionTest, AFetchedFoldedNodeKeepsItsNameAndValue) {
  Scope root = Scope::NewRootScope();
  auto sum = ops::Add(root.WithOpName("sum"), ops::Const(root, {1, 2}), ops::Const(root, {3, 4}));
  ops::Mul(root.WithOpName("twice"), sum, 2);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  for (const GraphOptions& options : {GraphOptions(), GraphOptions::Unoptimized()}) {
    std::vector<Tensor> out;
    absl::Status s = RunOnce(def, options, {"sum:0", "twice:0"}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].flat<int32_t>()(1), 6);
    EXPECT_EQ(out[1].flat<int32_t>()(0), 8);
  }
}

TEST(ConstantFoldingSessionTest, AStepThatFailsUnoptimizedFailsTheSameWayOptimized) {
  Scope root = Scope::NewRootScope();
  // The shape is only known once folded: the graph builds, its step fails.
  auto two = ops::Add(root.WithOpName("two"), ops::Const(root, {1}), ops::Const(root, {1}));
  auto bad = ops::Reshape(root.WithOpName("bad"), ops::Const(root, {1.0f, 2.0f, 3.0f}), two);
  ops::Neg(root.WithOpName("out"), bad);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  std::vector<Tensor> out;
  const absl::Status unoptimized = RunOnce(def, GraphOptions::Unoptimized(), {"out:0"}, &out);
  const absl::Status optimized = RunOnce(def, GraphOptions(), {"out:0"}, &out);
  ASSERT_FALSE(unoptimized.ok());
  // The same code, naming the same node. (Folded, the shape is known when
  // the step's partitions are built, so Reshape's shape function reports
  // it, in its own words, as in TensorFlow.)
  EXPECT_EQ(optimized.code(), unoptimized.code());
  EXPECT_THAT(std::string(optimized.message()), HasSubstr("Node 'bad' (op 'Reshape')"));
  EXPECT_THAT(std::string(unoptimized.message()), HasSubstr("Node 'bad' (op 'Reshape')"));
}

}  // namespace
}  // namespace minitf
