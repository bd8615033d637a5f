// AddSymbolicGradients: how gradients flow through a graph (sums, stops,
// unused outputs, unreachable inputs) and its errors, after TensorFlow's
// cc/framework/gradients_test.cc.
#include "ops/cc/gradients.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/grad_op_registry.h"
#include "runtime/op_registry.h"
#include "ops/standard_ops.h"
#include "session/session.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

// The values of `fetches` with `feeds`, on the CPU.
std::vector<Tensor> Eval(const Scope& root, const std::vector<std::pair<std::string, Tensor>>& feeds,
                         const std::vector<Output>& fetches) {
  GraphDef graph;
  EXPECT_TRUE(root.ToGraphDef(&graph).ok()) << root.status();
  SessionOptions options;
  options.config.device_count = {{"GPU", 0}};
  auto session = NewSession(options);
  EXPECT_TRUE(session.ok());
  EXPECT_TRUE((*session)->Create(graph).ok());
  std::vector<std::string> names;
  for (const Output& f : fetches) names.push_back(f.name());
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(feeds, names, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

std::vector<double> Values(const Tensor& t) {
  return std::vector<double>(t.data<double>(), t.data<double>() + t.NumElements());
}

Tensor Doubles(std::vector<double> v) {
  return Tensor::FromVector<double>(absl::Span<const double>(v),
                                    TensorShape({static_cast<int64_t>(v.size())}));
}

TEST(GradientsTest, ChainRuleWithOnesAsTheSeed) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::Mul(root, ops::Square(root, x), 3.0);
  std::vector<Output> dx;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, &dx).ok()) << root.status();
  auto out = Eval(root, {{"x", Doubles({1, -2, 0.5})}}, dx);
  EXPECT_THAT(Values(out[0]), ::testing::ElementsAre(6, -12, 3));
}

TEST(GradientsTest, ATensorUsedTwiceGetsTheSumOfItsGradients) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::Mul(root, x, x);
  std::vector<Output> dx;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, &dx).ok());
  EXPECT_EQ(root.FindNode(dx[0].node_name())->op, "AddN");
  auto out = Eval(root, {{"x", Doubles({2, -3})}}, dx);
  EXPECT_THAT(Values(out[0]), ::testing::ElementsAre(4, -6));
}

TEST(GradientsTest, StopGradientCutsItsPath) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::Mul(root, x, ops::StopGradient(root, x));  // d/dx treats the second x as constant
  std::vector<Output> dx;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, &dx).ok());
  auto out = Eval(root, {{"x", Doubles({2, -3})}}, dx);
  EXPECT_THAT(Values(out[0]), ::testing::ElementsAre(2, -3));
}

TEST(GradientsTest, AnInputTheOutputsDoNotDependOnGetsNoGradient) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto unused = ops::Placeholder(root.WithOpName("unused"), DT_DOUBLE);
  auto y = ops::Exp(root, x);
  std::vector<Output> grads;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x, unused}, &grads).ok());
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_TRUE(grads[0].valid());
  EXPECT_FALSE(grads[1].valid());
}

TEST(GradientsTest, SeveralOutputsWeightedByTheirGradInputs) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y1 = ops::Mul(root, x, 2.0);
  auto y2 = ops::Square(root, x);
  auto dy1 = ops::Const(root, Doubles({1, 10}));
  auto dy2 = ops::Const(root, Doubles({100, 1000}));
  std::vector<Output> dx;
  ASSERT_TRUE(AddSymbolicGradients(root, {y1, y2}, {x}, {dy1, dy2}, &dx).ok());
  auto out = Eval(root, {{"x", Doubles({1, 2})}}, dx);
  // 2 dy1 + 2 x dy2
  EXPECT_THAT(Values(out[0]), ::testing::ElementsAre(2 + 200, 20 + 4000));
}

TEST(GradientsTest, AnUnusedOutputOfAMultiOutputOpGetsZeros) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto parts = ops::Split(root, 0, x, 2);
  auto y = ops::Mul(root, parts[1], 5.0);
  std::vector<Output> dx;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, &dx).ok()) << root.status();
  auto out = Eval(root, {{"x", Doubles({1, 2, 3, 4})}}, dx);
  EXPECT_THAT(Values(out[0]), ::testing::ElementsAre(0, 0, 5, 5));
}

TEST(GradientsTest, InputsOnOnePathBothGetTheirGradients) {
  // x2 = x1^2, y = x2 x1: dy/dx2 = x1, dy/dx1 = 3 x1^2 (through x2 too).
  Scope root = Scope::NewRootScope();
  auto x1 = ops::Placeholder(root.WithOpName("x1"), DT_DOUBLE);
  auto x2 = ops::Square(root.WithOpName("x2"), x1);
  auto y = ops::Mul(root, x2, x1);
  std::vector<Output> grads;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x1, x2}, &grads).ok());
  auto out = Eval(root, {{"x1", Doubles({2})}}, grads);
  EXPECT_THAT(Values(out[0]), ::testing::ElementsAre(12));
  EXPECT_THAT(Values(out[1]), ::testing::ElementsAre(2));
}

TEST(GradientsTest, GradientOpsAreNamedUnderGradients) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::Exp(root.WithOpName("y"), x);
  std::vector<Output> first, second;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, &first).ok());
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, &second).ok());
  EXPECT_THAT(first[0].node_name(), ::testing::StartsWith("gradients/y_grad/"));
  EXPECT_THAT(second[0].node_name(), ::testing::StartsWith("gradients_1/y_grad/"));
}

TEST(GradientsTest, AnOpWithoutGradientIsAnErrorNamingIt) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  // MaxPoolGrad has no gradient (second order through max pooling).
  const ops::MaxPoolAttrs pool{.ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}, .padding = "VALID"};
  auto x32 = ops::Cast(root, x, DT_FLOAT);
  auto pooled = ops::MaxPool(root, x32, pool);
  auto y = ops::MaxPoolGrad(root.WithOpName("pool_grad"), x32, pooled, pooled, pool);
  std::vector<Output> dx;
  absl::Status s = AddSymbolicGradients(root, {y}, {x}, &dx);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("No gradient defined for op: MaxPoolGrad (node 'pool_grad')"));
  EXPECT_EQ(root.status(), s);  // recorded in the scope too
}

TEST(GradientsTest, PreventGradientIsAnErrorWithItsMessage) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::PreventGradient(root.WithOpName("blocked"), x, {.message = "no second order"});
  std::vector<Output> dx;
  absl::Status s = AddSymbolicGradients(root, {ops::Exp(root, y)}, {x}, &dx);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 'blocked'"));
  EXPECT_THAT(s.message(), HasSubstr("Gradient explicitly disabled. Reason: no second order"));
}

TEST(GradientsTest, BadArgumentsAreErrorsNamingThem) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  auto y = ops::Exp(root, x);
  std::vector<Output> dx;
  absl::Status s = AddSymbolicGradients(Scope::NewRootScope(), {y}, {x}, &dx);
  EXPECT_THAT(s.message(), HasSubstr("outputs[0]"));
  Scope a = Scope::NewRootScope();
  auto ax = ops::Placeholder(a.WithOpName("x"), DT_DOUBLE);
  s = AddSymbolicGradients(a, {ax}, {ax}, {}, &dx);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("1 outputs but 0 grad_inputs"));
  s = AddSymbolicGradients(root, {y}, {n}, &dx);
  EXPECT_THAT(s.message(), HasSubstr("inputs[0] 'n' has type int32"));
}

TEST(GradientsTest, IntegerTensorsCarryNoGradient) {
  // Through a Cast to int32 nothing flows back.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::Cast(root, ops::Cast(root, x, DT_INT32), DT_DOUBLE);
  std::vector<Output> dx;
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, &dx).ok());
  EXPECT_FALSE(dx[0].valid());
}

TEST(GradOpRegistryTest, LookupOfAnUnknownOpIsNotFound) {
  GradFunc fn = nullptr;
  absl::Status s = GradOpRegistry::Global()->Lookup("NoSuchOp", &fn);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("No gradient defined for op: NoSuchOp"));
  ASSERT_TRUE(GradOpRegistry::Global()->Lookup("MatMul", &fn).ok());
  EXPECT_NE(fn, nullptr);
  ASSERT_TRUE(GradOpRegistry::Global()->Lookup("Shape", &fn).ok());
  EXPECT_EQ(fn, nullptr);  // registered as not differentiable
}

// Every op minitf ships has a gradient or is marked not differentiable,
// except these (docs/GRADIENTS.md says why).
TEST(GradOpRegistryTest, EveryShippedOpIsCovered) {
  const std::set<std::string> uncovered = {
      // Stateful updates: not differentiable, an error as in TensorFlow.
      "Assign", "AssignAdd", "AssignSub", "ScatterAdd", "ApplyGradientDescent", "ApplyMomentum",
      "ApplyAdam", "ResourceApplyGradientDescent", "ResourceApplyMomentum", "ResourceApplyAdam",
      "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "DestroyResourceOp",
      // Second-order gradients of these gradient ops: not covered.
      "MaxPoolGrad", "FusedBatchNormGrad", "FusedBatchNormGradV3",
      // Fusions the graph optimizer makes after the gradients are built,
      // as TensorFlow's: never differentiated.
      "_FusedMatMul", "_FusedConv2D", "_FusedBatchNormEx", "_MklFusedBatchMatMulV2",
      // The executor's own ops.
      "_Arg", "_Retval", "_Send", "_Recv", "_HostSend", "_HostRecv"};
  const std::vector<std::string> with_gradient = GradOpRegistry::Global()->RegisteredOps();
  const std::set<std::string> covered(with_gradient.begin(), with_gradient.end());
  std::vector<std::string> missing;
  for (const std::string& op : OpRegistry::Global()->ListOpNames()) {
    if (op.rfind("_Test", 0) == 0) continue;  // the tests' own ops
    if (!covered.contains(op) && !uncovered.contains(op)) missing.push_back(op);
  }
  EXPECT_THAT(missing, ::testing::IsEmpty());
}

}  // namespace
}  // namespace minitf
