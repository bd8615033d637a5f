// The remapper's MatMul + BiasAdd + GELU fusion (optimizer/gelu_pattern.h),
// on the cases of Grappler's remapper tests: tf.nn.gelu as TensorFlow's
// Python writes it (approximate with its Pow, exact with Erfc, and the
// older exact form with Erf and a division), and as optimizers leave it
// (x^3 as x * Square(x), or Grappler's (c * x) * Square(x)), each fused
// into one _FusedMatMul named after the GELU's last node, its constants
// gone, giving the unfused values through a session; and what stays apart:
// a GELU whose inner node something else reads (as a training step's
// gradient does), one with a control input, a GELU with another constant,
// a convolution's GELU.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "optimizer/remapper.h"
#include "runtime/node_def_util.h"
#include "tests/testlib/graph_testing.h"
#include "tests/testlib/optimizer_testing.h"

namespace minitf {
namespace {

using test::CountOps;
using test::kCpu;
using test::RunUnoptimizedAndOptimized;
using test::ToPlacedGraph;

enum class Form {
  kApproximatePow,
  kApproximateSquare,
  kApproximateGrappler,
  kExactErfc,
  kExactErf
};

struct Constants {
  float half = 0.5f;
  float cube = 0.044715f;
  float sqrt_two_over_pi = 0.7978845608f;
};

Output Scalar(const Scope& root, float v) { return ops::Const(root, Input(v)); }

// GELU(x) in elementwise ops, its last node named "gelu"; `also_read`
// makes another node ("also") read its tanh or erf.
Output Gelu(const Scope& root, Output x, Form form, Constants k = {}, bool also_read = false) {
  Output half_x = ops::Mul(root, Scalar(root, k.half), x);
  Output inner;
  if (form == Form::kExactErfc) {
    inner = ops::Erfc(root, ops::Mul(root, ops::Neg(root, x), Scalar(root, 0.70710678f)));
  } else if (form == Form::kExactErf) {
    inner = ops::AddV2(root, Scalar(root, 1),
                       ops::Erf(root, ops::RealDiv(root, x, Scalar(root, 1.4142135f))));
  } else {
    Output cube_term;
    if (form == Form::kApproximatePow) {
      cube_term = ops::Mul(root, Scalar(root, k.cube), ops::Pow(root, x, Scalar(root, 3)));
    } else if (form == Form::kApproximateSquare) {
      cube_term = ops::Mul(root, Scalar(root, k.cube), ops::Mul(root, x, ops::Square(root, x)));
    } else {
      cube_term = ops::Mul(root, ops::Mul(root, Scalar(root, k.cube), x), ops::Square(root, x));
    }
    Output tanh = ops::Tanh(root.WithOpName("tanh"), ops::Mul(root, ops::AddV2(root, x, cube_term),
                                                              Scalar(root, k.sqrt_two_over_pi)));
    if (also_read) ops::Neg(root.WithOpName("also"), tanh);
    inner = ops::AddV2(root, tanh, Scalar(root, 1));
  }
  return ops::Mul(root.WithOpName("gelu"), inner, half_x);
}

// out = -GELU(x [4,6] @ w + b).
Scope DenseGelu(Form form, Constants k = {}, bool also_read = false) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Tensor w(DT_FLOAT, TensorShape({6, 5}));
  for (int i = 0; i < w.NumElements(); ++i)
    w.flat<float>()(i) = 0.15f * static_cast<float>(i % 7 - 3);
  auto mm = ops::MatMul(root.WithOpName("mm"), x, ops::Const(root.WithOpName("w"), w));
  auto ba = ops::BiasAdd(root.WithOpName("ba"), mm,
                         ops::Const(root.WithOpName("b"), {0.4f, -0.3f, 0.0f, 0.2f, -0.6f}));
  ops::Neg(root.WithOpName("out"), Gelu(root, ba, form, k, also_read));
  return root;
}

std::vector<std::string> FusedOps(const Node& n) {
  std::vector<std::string> fused_ops;
  EXPECT_TRUE(GetNodeAttr(n.def(), "fused_ops", &fused_ops).ok());
  return fused_ops;
}

const Form kForms[] = {Form::kApproximatePow, Form::kApproximateSquare, Form::kApproximateGrappler,
                       Form::kExactErfc, Form::kExactErf};

bool Approximate(Form form) { return form != Form::kExactErfc && form != Form::kExactErf; }

TEST(GeluFusionTest, EachFormBecomesOneFusedMatMul) {
  for (Form form : kForms) {
    SCOPED_TRACE(static_cast<int>(form));
    std::unique_ptr<Graph> g = ToPlacedGraph(DenseGelu(form), kCpu);
    EXPECT_TRUE(FuseContractionBiasAdd(g.get(), nullptr));
    const Node* fused = g->FindNode("gelu");
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->type_string(), "_FusedMatMul");
    EXPECT_EQ(
        FusedOps(*fused),
        (std::vector<std::string>{"BiasAdd", Approximate(form) ? "GeluApproximate" : "GeluExact"}));
    // Left: x, w, b, the fused node and `out`; the GELU's constants went
    // with its nodes.
    std::string ops;
    for (const Node* n : g->op_nodes()) ops += n->type_string() + " ";
    EXPECT_EQ(g->num_op_nodes(), 5) << ops;
    absl::StatusOr<const Edge*> read = g->FindNode("out")->input_edge(0);
    ASSERT_TRUE(read.ok());
    EXPECT_EQ((*read)->src(), fused);
  }
}

TEST(GeluFusionTest, TheFusedNodeGivesTheUnfusedValues) {
  Tensor xv(DT_FLOAT, TensorShape({4, 6}));
  for (int i = 0; i < xv.NumElements(); ++i) {
    xv.flat<float>()(i) = 0.37f * static_cast<float>(i % 13) - 2.2f;
  }
  for (Form form : kForms) {
    SCOPED_TRACE(static_cast<int>(form));
    GraphDef def;
    ASSERT_TRUE(DenseGelu(form).ToGraphDef(&def).ok());
    const std::vector<std::vector<Tensor>> results =
        RunUnoptimizedAndOptimized(def, {{"x", xv}}, {"out:0"});
    ASSERT_EQ(results.size(), 2u);
    const Tensor& unfused = results[0][0];
    const Tensor& fused = results[1][0];
    ASSERT_EQ(unfused.shape(), fused.shape());
    bool some_negative = false, some_positive = false;
    for (int64_t j = 0; j < unfused.NumElements(); ++j) {
      const float want = unfused.flat<float>()(j);
      EXPECT_NEAR(fused.flat<float>()(j), want, 2e-6f * (1 + std::abs(want))) << j;
      some_negative |= want > 0.01f;  // out = -GELU: a negative GELU.
      some_positive |= want < -0.5f;
    }
    EXPECT_TRUE(some_negative && some_positive);
  }
}

TEST(GeluFusionTest, WhatIsNotAFusableGeluStays) {
  struct Case {
    std::string name;
    Scope graph;
  };
  Constants other_half;
  other_half.half = 0.45f;
  Constants other_cube;
  other_cube.cube = 0.05f;
  std::vector<Case> cases;
  cases.push_back({"tanh read elsewhere", DenseGelu(Form::kApproximatePow, {}, true)});
  cases.push_back({"another half", DenseGelu(Form::kApproximateSquare, other_half)});
  cases.push_back({"another cube coefficient", DenseGelu(Form::kApproximatePow, other_cube)});
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::unique_ptr<Graph> g = ToPlacedGraph(c.graph, kCpu);
    // The MatMul and the BiasAdd still fuse; the GELU's nodes stay.
    EXPECT_TRUE(FuseContractionBiasAdd(g.get(), nullptr));
    const Node* fused = g->FindNode("ba");
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->type_string(), "_FusedMatMul");
    EXPECT_EQ(FusedOps(*fused), std::vector<std::string>{"BiasAdd"});
    EXPECT_EQ(CountOps(*g, "Tanh"), 1);
    EXPECT_EQ(g->FindNode("gelu")->type_string(), "Mul");
  }
}

TEST(GeluFusionTest, AGeluNodeWithAControlInputStays) {
  Scope root = DenseGelu(Form::kExactErfc);
  std::unique_ptr<Graph> g = ToPlacedGraph(root, kCpu);
  Node* erfc = nullptr;
  for (Node* n : g->op_nodes()) {
    if (n->type_string() == "Erfc") erfc = n;
  }
  ASSERT_NE(erfc, nullptr);
  g->AddControlEdge(g->FindNode("w"), erfc);
  EXPECT_TRUE(FuseContractionBiasAdd(g.get(), nullptr));
  EXPECT_EQ(CountOps(*g, "Erfc"), 1);
  EXPECT_EQ(FusedOps(*g->FindNode("ba")), std::vector<std::string>{"BiasAdd"});
}

TEST(GeluFusionTest, AConvolutionsGeluStaysApart) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto conv = ops::Conv2D(root.WithOpName("conv"), x,
                          ops::Const(root, Tensor(DT_FLOAT, TensorShape({1, 1, 2, 3}))),
                          {.strides = {1, 1, 1, 1}, .padding = "SAME"});
  auto ba = ops::BiasAdd(root.WithOpName("ba"), conv, ops::Const(root, {0.1f, 0.2f, 0.3f}));
  ops::Neg(root.WithOpName("out"), Gelu(root, ba, Form::kApproximatePow));
  std::unique_ptr<Graph> g = ToPlacedGraph(root, kCpu);
  EXPECT_TRUE(FuseContractionBiasAdd(g.get(), nullptr));
  const Node* fused = g->FindNode("ba");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->type_string(), "_FusedConv2D");
  EXPECT_EQ(FusedOps(*fused), std::vector<std::string>{"BiasAdd"});
  EXPECT_EQ(CountOps(*g, "Tanh"), 1);
}

}  // namespace
}  // namespace minitf
