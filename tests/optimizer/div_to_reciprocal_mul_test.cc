// ReduceDivToReciprocalMul (optimizer/div_to_reciprocal_mul.h) on the case
// of Grappler's constant_folding_test (StrengthReduce_Reciprocal): a float
// Div and a RealDiv by a Const become Muls by
// "ConstantFolding/<name>_recip" holding the reciprocal, keeping their
// names; an integer Div stays. Also: double, a divisor that broadcasts, a
// computed divisor, `consider`, an unplaced graph, control inputs, and,
// through a session, values within a rounding of the quotients (infinities
// and NaN where the quotient has them).
#include "optimizer/div_to_reciprocal_mul.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
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

const Tensor& ValueOf(const Node& constant) { return constant.def().attr.at("value").tensor(); }

TEST(DivToReciprocalMulTest, FloatDivisionsByConstantsBecomeProducts) {
  Scope root = Scope::NewRootScope();
  auto xf =
      ops::Placeholder(root.WithOpName("xf"), DT_FLOAT, {.shape = PartialTensorShape({2, 2})});
  auto xi =
      ops::Placeholder(root.WithOpName("xi"), DT_INT32, {.shape = PartialTensorShape({2, 2})});
  auto xd = ops::Placeholder(root.WithOpName("xd"), DT_DOUBLE);
  auto cf = ops::Const(root.WithOpName("cf"), Tensor::FromVector<float>({2.0f}, TensorShape({1})));
  auto ci = ops::Const(root.WithOpName("ci"), Tensor::FromVector<int32_t>({2}, TensorShape({1})));
  auto cd = ops::Const(root.WithOpName("cd"), Tensor::FromVector<double>({4.0, -0.5}));
  ops::Identity(root.WithOpName("o1"), ops::Div(root.WithOpName("div_i"), xi, ci));
  ops::Identity(root.WithOpName("o2"), ops::Div(root.WithOpName("div_f"), xf, cf));
  ops::Identity(root.WithOpName("o3"), ops::RealDiv(root.WithOpName("scope/realdiv"), xf, cf));
  ops::Identity(root.WithOpName("o4"), ops::RealDiv(root.WithOpName("div_d"), xd, cd));
  std::unique_ptr<Graph> g = ToPlacedGraph(root, kCpu);
  ASSERT_TRUE(ReduceDivToReciprocalMul(g.get(), nullptr));

  EXPECT_EQ(OpOf(*g, "div_i"), "Div");
  EXPECT_EQ(InputOf(*g, "div_i", 1)->name(), "ci");
  struct Expected {
    std::string div, x, recip;
  };
  for (const Expected& e : {Expected{"div_f", "xf", "ConstantFolding/div_f_recip"},
                            Expected{"scope/realdiv", "xf", "scope/ConstantFolding/realdiv_recip"},
                            Expected{"div_d", "xd", "ConstantFolding/div_d_recip"}}) {
    SCOPED_TRACE(e.div);
    EXPECT_EQ(OpOf(*g, e.div), "Mul");
    EXPECT_EQ(g->FindNode(e.div)->assigned_device_name(), kCpu);
    EXPECT_EQ(InputOf(*g, e.div, 0)->name(), e.x);
    const Node* recip = InputOf(*g, e.div, 1);
    ASSERT_NE(recip, nullptr);
    EXPECT_EQ(recip->name(), e.recip);
    EXPECT_EQ(recip->type_string(), "Const");
    EXPECT_EQ(recip->assigned_device_name(), kCpu);
  }
  const Tensor& half = ValueOf(*g->FindNode("ConstantFolding/div_f_recip"));
  ASSERT_EQ(half.dtype(), DT_FLOAT);
  EXPECT_EQ(half.shape(), TensorShape({1}));
  EXPECT_EQ(half.flat<float>()(0), 0.5f);
  const Tensor& d = ValueOf(*g->FindNode("ConstantFolding/div_d_recip"));
  ASSERT_EQ(d.dtype(), DT_DOUBLE);
  ASSERT_EQ(d.NumElements(), 2);
  EXPECT_EQ(d.flat<double>()(0), 0.25);
  EXPECT_EQ(d.flat<double>()(1), -2.0);
  // The divisors go once nothing reads them; the integer one stays.
  EXPECT_EQ(g->FindNode("cf"), nullptr);
  EXPECT_EQ(g->FindNode("cd"), nullptr);
  EXPECT_NE(g->FindNode("ci"), nullptr);
  EXPECT_FALSE(ReduceDivToReciprocalMul(g.get(), nullptr));  // Nothing left.
}

TEST(DivToReciprocalMulTest, ComputedDivisorsSkippedNodesAndUnplacedGraphsStay) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto two = ops::Add(root.WithOpName("two"), ops::Const(root, 1.0f), ops::Const(root, 1.0f));
  ops::Identity(root.WithOpName("o1"), ops::RealDiv(root.WithOpName("computed"), x, two));
  ops::Identity(root.WithOpName("o2"),
                ops::RealDiv(root.WithOpName("skipped"), x, ops::Const(root, 3.0f)));
  ops::Identity(root.WithOpName("o3"),
                ops::RealDiv(root.WithOpName("taken"), x, ops::Const(root, 3.0f)));
  std::unique_ptr<Graph> unplaced = test::ToGraph(root);
  EXPECT_FALSE(ReduceDivToReciprocalMul(unplaced.get(), nullptr));
  EXPECT_EQ(OpOf(*unplaced, "taken"), "RealDiv");

  std::unique_ptr<Graph> g = ToPlacedGraph(root, kGpu);  // SimGPU has Mul.
  EXPECT_TRUE(
      ReduceDivToReciprocalMul(g.get(), [](const Node* n) { return n->name() != "skipped"; }));
  EXPECT_EQ(OpOf(*g, "computed"), "RealDiv");
  EXPECT_EQ(OpOf(*g, "skipped"), "RealDiv");
  EXPECT_EQ(OpOf(*g, "taken"), "Mul");
  EXPECT_EQ(InputOf(*g, "taken", 1)->assigned_device_name(), kGpu);
}

TEST(DivToReciprocalMulTest, ControlInputsOfTheDivisorAreWaitedFor) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto before = ops::NoOp(root.WithOpName("before"));
  auto c = ops::Const(root.WithOpName("c").WithControlDependencies({before}), 4.0f);
  ops::Identity(root.WithOpName("out"), ops::RealDiv(root.WithOpName("d"), x, c));
  std::unique_ptr<Graph> g = ToPlacedGraph(root, kCpu);
  ASSERT_TRUE(ReduceDivToReciprocalMul(g.get(), nullptr));
  const Node* mul = g->FindNode("d");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->type_string(), "Mul");
  bool waits_for_c = false;
  for (const Edge* e : mul->in_edges())
    waits_for_c |= e->IsControlEdge() && e->src()->name() == "c";
  EXPECT_TRUE(waits_for_c);  // c has an input of its own: kept, and waited for.
}

// Through a session (the default passes against none): every quotient by a
// constant within a rounding of x / c, infinities and NaN where the quotient
// has them; the integer quotient exact.
TEST(DivToReciprocalMulTest, ValuesAreTheQuotientsToARounding) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto xi = ops::Placeholder(root.WithOpName("xi"), DT_INT32);
  const std::vector<float> divisors = {2.0f, 3.0f, 0.1f, -7.0f, 1e-30f, 0.0f, -0.0f};
  std::vector<std::string> fetches;
  for (size_t i = 0; i < divisors.size(); ++i) {
    const std::string name = "q" + std::to_string(i);
    ops::Identity(root.WithOpName(name), ops::RealDiv(root, x, ops::Const(root, divisors[i])));
    fetches.push_back(name + ":0");
  }
  ops::Identity(root.WithOpName("qi"), ops::Div(root, xi, ops::Const(root, 3)));
  fetches.push_back("qi:0");
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  const Tensor xs = Tensor::FromVector<float>(
      {-3.5f, -1.0f, -0.0f, 0.0f, 0.3f, 1.7f, 2.9e5f, -7.1e-3f, 3e38f, 1e-38f});
  const Tensor xis = Tensor::FromVector<int32_t>({-7, -1, 0, 5, 9});
  const auto results = RunUnoptimizedAndOptimized(def, {{"x", xs}, {"xi", xis}}, fetches);
  ASSERT_EQ(results.size(), 2u);
  for (size_t i = 0; i < divisors.size(); ++i) {
    SCOPED_TRACE(fetches[i]);
    ASSERT_EQ(results[0][i].NumElements(), 10);
    ASSERT_EQ(results[1][i].NumElements(), 10);
    for (int j = 0; j < 10; ++j) {
      const float quotient = results[0][i].flat<float>()(j);
      const float product = results[1][i].flat<float>()(j);
      const float expected = xs.flat<float>()(j) / divisors[i];  // Unoptimized: divides.
      EXPECT_TRUE(quotient == expected || (std::isnan(quotient) && std::isnan(expected))) << j;
      if (std::isnan(quotient) || std::isinf(quotient)) {
        EXPECT_EQ(std::isnan(product), std::isnan(quotient)) << j;
        EXPECT_EQ(std::isinf(product), std::isinf(quotient)) << j;
      } else if (std::abs(quotient) >= std::numeric_limits<float>::min()) {
        EXPECT_NEAR(product, quotient, 1.2e-7f * std::abs(quotient)) << j;
      }
      if (!std::isnan(quotient)) {
        EXPECT_EQ(std::signbit(product), std::signbit(quotient)) << j;
      }
    }
  }
  ASSERT_EQ(results[1].back().NumElements(), 5);
  for (int j = 0; j < 5; ++j) {
    EXPECT_EQ(results[1].back().flat<int32_t>()(j), results[0].back().flat<int32_t>()(j));
  }
}

}  // namespace
}  // namespace minitf
