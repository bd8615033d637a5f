// ConvertPow (optimizer/convert_pow.h) on the cases of Grappler's
// arithmetic_optimizer_test (ConvertPow): exponents 2, 3, 1, 0.5, 0, -0.5
// and -1 held by a Const of shape [1,2] become Square, Mul of x and a new
// Square, Identity, Sqrt, OnesLike, Rsqrt and Reciprocal, keeping the
// node's name; exponents that differ, an exponent that broadcasts x to a
// larger shape and a computed exponent stay; a scalar exponent converts
// whatever x's shape. On a GPU the cube stays (as in Grappler) and so does
// x^-1 (no GPU Reciprocal). Through a session, the values and a training
// step's gradients are those of Pow.
#include "optimizer/convert_pow.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/gradients.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "optimizer/graph_optimizer.h"
#include "tests/testlib/graph_testing.h"
#include "tests/testlib/optimizer_testing.h"

namespace minitf {
namespace {

using test::InputOf;
using test::OpOf;
using test::kCpu;
using test::kGpu;
using test::RunUnoptimizedAndOptimized;
using test::ToPlacedGraph;

Output Pair(const Scope& root, const std::string& name, float a, float b) {
  return ops::Const(root.WithOpName(name), Tensor::FromVector<float>({a, b}, TensorShape({1, 2})));
}

// x [2,2] to the power of each exponent, as node "p<name>" reading Const
// "c<name>", each read by an Identity.
Scope Powers(const std::vector<std::pair<std::string, std::pair<float, float>>>& exponents) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = PartialTensorShape({2, 2})});
  for (const auto& [name, k] : exponents) {
    auto p = ops::Pow(root.WithOpName("p" + name), x, Pair(root, "c" + name, k.first, k.second));
    ops::Identity(root.WithOpName("out" + name), p);
  }
  return root;
}

TEST(ConvertPowTest, EachUniformExponentBecomesItsOp) {
  Scope root = Powers({{"2", {2, 2}},
                       {"3", {3, 3}},
                       {"1", {1, 1}},
                       {"half", {0.5f, 0.5f}},
                       {"0", {0, 0}},
                       {"minus_half", {-0.5f, -0.5f}},
                       {"minus_1", {-1, -1}},
                       {"mixed", {2, 3}}});
  std::unique_ptr<Graph> g = ToPlacedGraph(root, kCpu);
  ASSERT_TRUE(ConvertPow(g.get(), nullptr));
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"2", "Square"},    {"3", "Mul"},         {"1", "Identity"},
      {"half", "Sqrt"},   {"0", "OnesLike"},    {"minus_half", "Rsqrt"},
      {"minus_1", "Reciprocal"}, {"mixed", "Pow"}};
  for (const auto& [name, op] : expected) {
    SCOPED_TRACE(name);
    EXPECT_EQ(OpOf(*g, "p" + name), op);
    EXPECT_EQ(InputOf(*g, "p" + name, 0)->name(), "x");
    EXPECT_EQ(InputOf(*g, "out" + name, 0)->name(), "p" + name);
    EXPECT_EQ(g->FindNode("p" + name)->assigned_device_name(), kCpu);
    // The exponent's Const goes with the Pow.
    EXPECT_EQ(g->FindNode("c" + name) != nullptr, op == "Pow");
  }
  const Node* inner = InputOf(*g, "p3", 1);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->name(), "ArithmeticOptimizer/ConvertPow_p3_inner");
  EXPECT_EQ(inner->type_string(), "Square");
  EXPECT_EQ(InputOf(*g, inner->name(), 0)->name(), "x");
  EXPECT_FALSE(ConvertPow(g.get(), nullptr));  // Nothing left to convert.
}

TEST(ConvertPowTest, BroadcastingAndComputedExponentsStayAndScalarsConvert) {
  Scope root = Scope::NewRootScope();
  auto z = ops::Placeholder(root.WithOpName("z"), DT_FLOAT, {.shape = PartialTensorShape({2, 1})});
  auto any = ops::Placeholder(root.WithOpName("any"), DT_FLOAT);
  // [2,1] ^ [1,2] is [2,2]: Square(z) would be [2,1].
  ops::Identity(root.WithOpName("o1"), ops::Pow(root.WithOpName("wide"), z, Pair(root, "c", 2, 2)));
  auto two = ops::Add(root.WithOpName("two"), ops::Const(root, 1.0f), ops::Const(root, 1.0f));
  ops::Identity(root.WithOpName("o2"), ops::Pow(root.WithOpName("computed"), any, two));
  ops::Identity(root.WithOpName("o3"),
                ops::Pow(root.WithOpName("scalar"), any, ops::Const(root.WithOpName("k"), 2.0f)));
  auto skipped = ops::Pow(root.WithOpName("skipped"), any, ops::Const(root, 2.0f));
  ops::Identity(root.WithOpName("o4"), skipped);
  std::unique_ptr<Graph> g = ToPlacedGraph(root, kCpu);
  EXPECT_TRUE(ConvertPow(g.get(), [](const Node* n) { return n->name() != "skipped"; }));
  EXPECT_EQ(OpOf(*g, "wide"), "Pow");
  EXPECT_EQ(OpOf(*g, "computed"), "Pow");
  EXPECT_EQ(OpOf(*g, "scalar"), "Square");
  EXPECT_EQ(g->FindNode("k"), nullptr);
  EXPECT_EQ(OpOf(*g, "skipped"), "Pow");
}

TEST(ConvertPowTest, ControlInputsAndNonConstExponentNodesAreWaitedFor) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto before = ops::NoOp(root.WithOpName("before"));
  // The exponent's Const waits for `before`: the Square must too.
  auto k = ops::Const(root.WithOpName("k").WithControlDependencies({before}), 2.0f);
  auto p = ops::Pow(root.WithOpName("p"), x, k);
  ops::Identity(root.WithOpName("out"), p);
  std::unique_ptr<Graph> g = ToPlacedGraph(root, kCpu);
  ASSERT_TRUE(ConvertPow(g.get(), nullptr));
  const Node* square = g->FindNode("p");
  ASSERT_NE(square, nullptr);
  EXPECT_EQ(square->type_string(), "Square");
  bool waits_for_k = false;
  for (const Edge* e : square->in_edges()) {
    waits_for_k |= e->IsControlEdge() && e->src()->name() == "k";
  }
  EXPECT_TRUE(waits_for_k);  // k has an input of its own: kept, and waited for.
}

TEST(ConvertPowTest, OnAGpuTheCubeAndTheReciprocalStay) {
  Scope root = Powers({{"3", {3, 3}}, {"minus_1", {-1, -1}}});
  std::unique_ptr<Graph> g = ToPlacedGraph(root, kGpu);
  EXPECT_FALSE(ConvertPow(g.get(), nullptr));
  EXPECT_EQ(OpOf(*g, "p3"), "Pow");
  EXPECT_EQ(OpOf(*g, "pminus_1"), "Pow");
}

TEST(ConvertPowTest, UnplacedGraphsStay) {
  std::unique_ptr<Graph> g = test::ToGraph(Powers({{"2", {2, 2}}}));
  EXPECT_FALSE(ConvertPow(g.get(), nullptr));
  EXPECT_EQ(OpOf(*g, "p2"), "Pow");
}

// Through a session, scalar exponents (the kernel's whole-power path, as in
// a GELU): the same values with the conversion as without.
TEST(ConvertPowTest, ValuesAreThoseOfPow) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto pos = ops::Placeholder(root.WithOpName("pos"), DT_FLOAT);
  const std::vector<std::pair<std::string, float>> whole = {{"2", 2}, {"3", 3}, {"1", 1}, {"0", 0}};
  const std::vector<std::pair<std::string, float>> other = {
      {"half", 0.5f}, {"minus_half", -0.5f}, {"minus_1", -1}};
  std::vector<std::string> fetches;
  for (const auto& [name, k] : whole) {
    ops::Identity(root.WithOpName("w" + name), ops::Pow(root, x, ops::Const(root, k)));
    fetches.push_back("w" + name + ":0");
  }
  for (const auto& [name, k] : other) {
    ops::Identity(root.WithOpName("o" + name), ops::Pow(root, pos, ops::Const(root, k)));
    fetches.push_back("o" + name + ":0");
  }
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  const Tensor xs =
      Tensor::FromVector<float>({-3.5f, -1.0f, -0.0f, 0.0f, 0.3f, 1.7f, 2.9e5f, -7.1e-3f});
  const Tensor ps = Tensor::FromVector<float>({0.3f, 1.0f, 1.7f, 2.5f, 4.0f, 9.1e4f, 3e-7f, 17.0f});
  const auto results = RunUnoptimizedAndOptimized(def, {{"x", xs}, {"pos", ps}}, fetches);
  ASSERT_EQ(results.size(), 2u);
  for (size_t i = 0; i < fetches.size(); ++i) {
    SCOPED_TRACE(fetches[i]);
    ASSERT_EQ(results[0][i].NumElements(), 8);
    ASSERT_EQ(results[1][i].NumElements(), 8);
    for (int j = 0; j < 8; ++j) {
      const float pow = results[0][i].flat<float>()(j);
      const float converted = results[1][i].flat<float>()(j);
      if (i < whole.size()) {
        // The same products: the same bits.
        EXPECT_EQ(std::signbit(converted), std::signbit(pow)) << j;
        EXPECT_EQ(converted, pow) << j;
      } else {
        EXPECT_NEAR(converted, pow, 2.5e-7f * std::abs(pow)) << j;
      }
    }
  }
}

// A GELU's cube and its gradient (whose exponent 3 - 1 folds to 2): the
// training step's values are the same bits with the conversion as without.
TEST(ConvertPowTest, GeluCubeAndItsGradientGiveTheSameBits) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto cube = ops::Pow(root.WithOpName("cube"), x, ops::Const(root, 3.0f));
  auto inner = ops::Add(root, x, ops::Mul(root, ops::Const(root, 0.044715f), cube));
  auto y = ops::Mul(root, x, ops::Tanh(root, inner));
  auto loss = ops::Sum(root.WithOpName("loss"), y, ops::Const(root, {0}));
  std::vector<Output> grads;
  ASSERT_TRUE(AddSymbolicGradients(root, {loss}, {x}, &grads).ok()) << root.status();
  ops::Identity(root.WithOpName("dx"), grads[0]);
  // The session's passes: the gradient's exponent folds, both Pows
  // convert, and CSE leaves one Square of x.
  std::unique_ptr<Graph> g = ToPlacedGraph(root, kCpu);
  ASSERT_TRUE(GraphOptimizer(GraphOptions()).Optimize(g.get()).ok());
  EXPECT_EQ(test::CountOps(*g, "Pow"), 0);
  EXPECT_EQ(test::CountOps(*g, "Square"), 1);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  const Tensor xs = Tensor::FromVector<float>({-2.5f, -0.7f, 0.0f, 0.4f, 1.3f, 3.1f});
  const auto results = RunUnoptimizedAndOptimized(def, {{"x", xs}}, {"loss:0", "dx:0"});
  ASSERT_EQ(results.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_EQ(results[0][i].NumElements(), results[1][i].NumElements());
    for (int64_t j = 0; j < results[0][i].NumElements(); ++j) {
      EXPECT_EQ(results[1][i].flat<float>()(j), results[0][i].flat<float>()(j)) << i << " " << j;
    }
  }
}

}  // namespace
}  // namespace minitf
