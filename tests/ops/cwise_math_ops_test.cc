// Tests of the elementwise math ops TensorFlow 2.x graphs add to the basic
// ones: AddV2, RealDiv, FloorDiv, FloorMod, Pow, SquaredDifference (with
// broadcasting), Rsqrt, Abs, Sign, Reciprocal, Erf, Erfc, and the gradient helpers
// RsqrtGrad, SqrtGrad, ReciprocalGrad, SigmoidGrad, TanhGrad: kernels, shape
// functions, errors and the graph-builder wrappers.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/array_ops.h"
#include "ops/cc/math_ops.h"
#include "session/session.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorEqual;
using test::ExpectTensorNear;
using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using ::testing::HasSubstr;

// Runs `op` (one output, typed by attr T = the first input's type).
absl::StatusOr<Tensor> RunOp(const std::string& op, const std::vector<Tensor>& inputs) {
  KernelRunner runner(MakeNodeDef("n", op, {{"T", inputs[0].dtype()}}));
  absl::StatusOr<std::vector<Tensor>> out = runner.Run(inputs);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

void ExpectOp(const std::string& op, const std::vector<Tensor>& inputs, const Tensor& expected) {
  absl::StatusOr<Tensor> out = RunOp(op, inputs);
  ASSERT_TRUE(out.ok()) << op << ": " << out.status();
  if (expected.dtype() == DT_FLOAT || expected.dtype() == DT_DOUBLE) {
    ExpectTensorNear(*out, expected, 1e-6, 1e-6);
  } else {
    ExpectTensorEqual(*out, expected);
  }
}

void ExpectInvalidArgument(const std::string& op, const std::vector<Tensor>& inputs,
                           const std::string& message) {
  absl::StatusOr<Tensor> out = RunOp(op, inputs);
  ASSERT_FALSE(out.ok()) << op << " should fail";
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_THAT(std::string(out.status().message()), HasSubstr(message));
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("'n'"));
}

template <typename T>
Tensor V(std::initializer_list<T> values) {
  return Tensor::FromVector<T>(values);
}

TEST(CwiseMathOpsTest, AddV2AddsWithBroadcasting) {
  ExpectOp("AddV2", {V<int32_t>({1, 2}), V<int32_t>({3, 4})}, V<int32_t>({4, 6}));
  ExpectOp("AddV2",
           {Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})), Tensor::Scalar(0.5f)},
           Tensor::FromVector<float>({1.5f, 2.5f, 3.5f, 4.5f}, TensorShape({2, 2})));
  ExpectInvalidArgument("AddV2", {V<float>({1, 2, 3}), V<float>({1, 2})}, "[3]");
}

TEST(CwiseMathOpsTest, RealDivIsFloatingDivision) {
  ExpectOp("RealDiv", {V<float>({7, -1}), V<float>({2, 4})}, V<float>({3.5f, -0.25f}));
  ExpectOp("RealDiv", {V<double>({1, 3}), Tensor::Scalar<double>(4)}, V<double>({0.25, 0.75}));
  absl::StatusOr<Tensor> inf = RunOp("RealDiv", {V<float>({1}), V<float>({0})});
  ASSERT_TRUE(inf.ok()) << inf.status();
  EXPECT_EQ(inf->flat<float>()(0), std::numeric_limits<float>::infinity());
  ExpectInvalidArgument("RealDiv", {V<float>({1, 2}), V<float>({1, 2, 3})}, "[2]");
}

TEST(CwiseMathOpsTest, FloorDivRoundsTowardNegativeInfinity) {
  const Tensor x = V<int32_t>({7, -7, 7, -7, 0, -8, 6});
  const Tensor y = V<int32_t>({2, 2, -2, -2, 3, 3, -3});
  ExpectOp("FloorDiv", {x, y}, V<int32_t>({3, -4, -4, 3, 0, -3, -2}));
  ExpectOp("FloorDiv", {V<int64_t>({-1, 1}), Tensor::Scalar<int64_t>(5)}, V<int64_t>({-1, 0}));
  ExpectOp("FloorDiv", {V<float>({7.5f, -7.5f}), V<float>({2, 2})}, V<float>({3, -4}));
  ExpectOp("FloorDiv", {V<double>({-1}), V<double>({3})}, V<double>({-1}));
  // The lowest value divided by -1 wraps, as in TensorFlow's CPU kernel.
  const int32_t lowest = std::numeric_limits<int32_t>::min();
  ExpectOp("FloorDiv", {V<int32_t>({lowest}), V<int32_t>({-1})}, V<int32_t>({lowest}));
}

TEST(CwiseMathOpsTest, FloorModHasTheSignOfTheDivisor) {
  const Tensor x = V<int32_t>({7, -7, 7, -7, 0, -8, 6});
  const Tensor y = V<int32_t>({2, 2, -2, -2, 3, 3, -3});
  ExpectOp("FloorMod", {x, y}, V<int32_t>({1, 1, -1, -1, 0, 1, 0}));
  ExpectOp("FloorMod", {V<int64_t>({-1, 12}), Tensor::Scalar<int64_t>(5)}, V<int64_t>({4, 2}));
  ExpectOp("FloorMod", {V<float>({7.5f, -7.5f, 7.5f}), V<float>({2, 2, -2})},
           V<float>({1.5f, 0.5f, -0.5f}));
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  ExpectOp("FloorMod", {V<int64_t>({lowest}), V<int64_t>({-1})}, V<int64_t>({0}));
}

TEST(CwiseMathOpsTest, IntegerFloorDivAndFloorModByZeroAreInvalidArguments) {
  ExpectInvalidArgument("FloorDiv", {V<int32_t>({1, 2}), V<int32_t>({1, 0})},
                        "Integer division by zero");
  ExpectInvalidArgument("FloorMod", {V<int64_t>({1, 2}), Tensor::Scalar<int64_t>(0)},
                        "Integer division by zero");
  ExpectInvalidArgument("Div", {V<int32_t>({1}), V<int32_t>({0})}, "Integer division by zero");
  // Floats divide by zero the IEEE way.
  absl::StatusOr<Tensor> nan = RunOp("FloorMod", {V<float>({1}), V<float>({0})});
  ASSERT_TRUE(nan.ok()) << nan.status();
  EXPECT_TRUE(std::isnan(nan->flat<float>()(0)));
}

TEST(CwiseMathOpsTest, PowRaisesToThePowerAndRejectsNegativeIntegerExponents) {
  ExpectOp("Pow", {V<int32_t>({2, -3, 5, 0}), V<int32_t>({10, 3, 0, 0})},
           V<int32_t>({1024, -27, 1, 1}));
  ExpectOp("Pow", {V<int64_t>({3}), V<int64_t>({39})}, V<int64_t>({4052555153018976267}));
  ExpectOp("Pow", {V<float>({4, 2, 9}), V<float>({0.5f, -1, 2})}, V<float>({2, 0.5f, 81}));
  ExpectOp("Pow", {V<double>({2, 3}), Tensor::Scalar<double>(3)}, V<double>({8, 27}));
  ExpectInvalidArgument("Pow", {V<int32_t>({2, 2}), V<int32_t>({1, -1})},
                        "Integers to negative integer powers are not allowed");
}

// A scalar whole exponent from 0 to 16 (GELU's x^3) is computed by
// multiplications: within two ulps of std::pow, and the same special values.
TEST(CwiseMathOpsTest, PowByAScalarWholeExponentMatchesStdPow) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> xs = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -1.7f, 3.25f, -7.5f, 1e-3f,
                                 -2e5f, 1e20f, -1e20f, inf, -inf, nan};
  for (float k : {0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 7.0f, 16.0f, 2.5f, -1.0f, 17.0f}) {
    SCOPED_TRACE(testing::Message() << "exponent " << k);
    const Tensor x = Tensor::FromVector<float>(xs, TensorShape({static_cast<int64_t>(xs.size())}));
    absl::StatusOr<Tensor> out = RunOp("Pow", {x, Tensor::Scalar<float>(k)});
    ASSERT_TRUE(out.ok()) << out.status();
    for (size_t i = 0; i < xs.size(); ++i) {
      const float want = std::pow(xs[i], k);
      const float got = out->flat<float>()(static_cast<Eigen::Index>(i));
      if (std::isnan(want) || std::isinf(want) || want == 0.0f) {
        EXPECT_TRUE((std::isnan(want) && std::isnan(got)) ||
                    (got == want && std::signbit(got) == std::signbit(want)))
            << xs[i] << "^" << k << " = " << got << ", std::pow " << want;
      } else {
        EXPECT_NEAR(got, want, 2.5e-7 * std::abs(want)) << xs[i] << "^" << k;
      }
    }
  }
  // double, and an exponent in a one-element vector.
  ExpectOp("Pow", {V<double>({-1.5, 2.0}), V<double>({3})}, V<double>({-3.375, 8.0}));
}

TEST(CwiseMathOpsTest, SquaredDifferenceBroadcasts) {
  ExpectOp("SquaredDifference", {V<float>({1, 5}), V<float>({4, 2})}, V<float>({9, 9}));
  ExpectOp("SquaredDifference",
           {Tensor::FromVector<int32_t>({1, 2, 3, 4}, TensorShape({2, 2})), V<int32_t>({1})},
           Tensor::FromVector<int32_t>({0, 1, 4, 9}, TensorShape({2, 2})));
  ExpectInvalidArgument("SquaredDifference", {V<double>({1, 2}), V<double>({1, 2, 3})}, "[3]");
}

TEST(CwiseMathOpsTest, UnaryOpsComputeElementwise) {
  ExpectOp("Rsqrt", {V<float>({4, 0.25f})}, V<float>({0.5f, 2}));
  ExpectOp("Rsqrt", {V<double>({16})}, V<double>({0.25}));
  ExpectOp("Abs", {V<int32_t>({-3, 0, 4})}, V<int32_t>({3, 0, 4}));
  ExpectOp("Abs", {V<double>({-2.5, 1})}, V<double>({2.5, 1}));
  ExpectOp("Sign", {V<int64_t>({-5, 0, 7})}, V<int64_t>({-1, 0, 1}));
  ExpectOp("Sign", {V<float>({-2, 0, 3})}, V<float>({-1, 0, 1}));
  ExpectOp("Reciprocal", {V<float>({2, -0.5f})}, V<float>({0.5f, -2}));
  ExpectOp("Erf", {V<double>({0, 0.5, -1})},
           V<double>({0, 0.5204998778130465, -0.8427007929497149}));
  ExpectOp("Erf", {V<float>({2})}, V<float>({0.9953222650189527f}));
  ExpectOp("Erfc", {V<double>({0, 1})}, V<double>({1, 0.15729920705028513}));
  ExpectOp("Erfc", {V<float>({-0.5f})}, V<float>({1.5204998778130465f}));
}

// Erfc keeps its relative precision where 1 - Erf(x) rounds to 0.
TEST(CwiseMathOpsTest, ErfcIsPreciseInTheTail) {
  absl::StatusOr<Tensor> out = RunOp("Erfc", {V<double>({5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NEAR(out->data<double>()[0] / 1.5374597944280351e-12, 1.0, 1e-12);
}

TEST(CwiseMathOpsTest, SignOfNanIsNanAndReciprocalOfZeroIsInfinite) {
  absl::StatusOr<Tensor> sign = RunOp("Sign", {V<float>({std::nanf("")})});
  ASSERT_TRUE(sign.ok()) << sign.status();
  EXPECT_TRUE(std::isnan(sign->flat<float>()(0)));
  absl::StatusOr<Tensor> inv = RunOp("Reciprocal", {V<double>({0})});
  ASSERT_TRUE(inv.ok()) << inv.status();
  EXPECT_EQ(inv->flat<double>()(0), std::numeric_limits<double>::infinity());
}

// y = f(x) and dy give dL/dx; hand-computed from the derivatives.
TEST(CwiseMathOpsTest, GradientHelpersComputeTheDerivativeFromTheOutput) {
  const Tensor y = V<float>({0.5f, 2});
  const Tensor dy = V<float>({2, 3});
  ExpectOp("RsqrtGrad", {y, dy}, V<float>({-0.125f, -12}));      // dy * -0.5 * y^3
  ExpectOp("SqrtGrad", {y, dy}, V<float>({2, 0.75f}));           // dy * 0.5 / y
  ExpectOp("ReciprocalGrad", {y, dy}, V<float>({-0.5f, -12}));   // -dy * y^2
  ExpectOp("SigmoidGrad", {y, dy}, V<float>({0.5f, -6}));        // dy * y * (1 - y)
  ExpectOp("TanhGrad", {y, dy}, V<float>({1.5f, -9}));           // dy * (1 - y^2)
  ExpectOp("TanhGrad", {V<double>({0.5}), V<double>({4})}, V<double>({3}));
}

TEST(CwiseMathOpsTest, GradientHelpersRejectOperandsOfDifferentSizes) {
  ExpectInvalidArgument("SigmoidGrad", {V<float>({1, 2}), V<float>({1, 2, 3})},
                        "same number of elements");
  ExpectInvalidArgument("RsqrtGrad", {V<double>({1}), V<double>({1, 2})},
                        "same number of elements");
}

TEST(CwiseMathOpsTest, ShapeFunctionsBroadcastOrMerge) {
  absl::StatusOr<std::vector<PartialTensorShape>> pow = test::InferShapes(
      MakeNodeDef("pow", "Pow", {{"T", DT_FLOAT}}), {PartialTensorShape({2, 1}), {3}});
  ASSERT_TRUE(pow.ok()) << pow.status();
  EXPECT_EQ((*pow)[0].DebugString(), PartialTensorShape({2, 3}).DebugString());
  absl::StatusOr<std::vector<PartialTensorShape>> grad =
      test::InferShapes(MakeNodeDef("g", "TanhGrad", {{"T", DT_FLOAT}}),
                        {PartialTensorShape({2, -1}), PartialTensorShape({-1, 3})});
  ASSERT_TRUE(grad.ok()) << grad.status();
  EXPECT_EQ((*grad)[0].DebugString(), PartialTensorShape({2, 3}).DebugString());
  absl::StatusOr<std::vector<PartialTensorShape>> bad = test::InferShapes(
      MakeNodeDef("g", "SqrtGrad", {{"T", DT_FLOAT}}), {PartialTensorShape({2}), {3}});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CwiseMathOpsTest, BuildersMakeTheOpsAndTheyRunInASession) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Tensor::FromVector<float>({-4, 9}));
  auto a = ops::FloorMod(root.WithOpName("a"), ops::AddV2(root, x, 1.0f), 3.0f);     // [0, 1]
  auto b = ops::Pow(root.WithOpName("b"), ops::Abs(root, x), 0.5f);                  // [2, 3]
  auto c = ops::SquaredDifference(root.WithOpName("c"), ops::Sign(root, x), 1.0f);   // [4, 0]
  auto d = ops::RealDiv(root.WithOpName("d"), ops::Reciprocal(root, x), ops::Rsqrt(root, 4.0f));
  auto e = ops::TanhGrad(root.WithOpName("e"), ops::Erf(root, ops::Const(root, V<float>({0, 0}))),
                         x);  // dy * (1 - 0) = x
  auto f = ops::FloorDiv(root.WithOpName("f"), x, 3.0f);  // [-2, 3]
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  absl::StatusOr<std::unique_ptr<Session>> session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Create(def).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {"a", "b", "c", "d", "e", "f"}, {}, &out).ok());
  ExpectTensorNear(out[0], V<float>({0, 1}));
  ExpectTensorNear(out[1], V<float>({2, 3}));
  ExpectTensorNear(out[2], V<float>({4, 0}));
  ExpectTensorNear(out[3], V<float>({-0.5f, 2.0f / 9}));
  ExpectTensorNear(out[4], V<float>({-4, 9}));
  ExpectTensorNear(out[5], V<float>({-2, 3}));
}

TEST(AddNTest, SumsAnyNumberOfTensors) {
  KernelRunner one(MakeNodeDef("sum", "AddN", {{"N", 1}, {"T", DT_INT32}}));
  absl::StatusOr<std::vector<Tensor>> single = one.Run({V<int32_t>({1, -2})});
  ASSERT_TRUE(single.ok()) << single.status();
  ExpectTensorEqual((*single)[0], V<int32_t>({1, -2}));
  KernelRunner three(MakeNodeDef("sum", "AddN", {{"N", 3}, {"T", DT_DOUBLE}}));
  absl::StatusOr<std::vector<Tensor>> sum =
      three.Run({V<double>({1, 2}), V<double>({10, 20}), V<double>({0.5, -0.5})});
  ASSERT_TRUE(sum.ok()) << sum.status();
  ExpectTensorEqual((*sum)[0], V<double>({11.5, 21.5}));
}

TEST(AddNTest, InputsOfDifferentShapesAreAnError) {
  KernelRunner runner(MakeNodeDef("sum", "AddN", {{"N", 2}, {"T", DT_FLOAT}}));
  absl::StatusOr<std::vector<Tensor>> out = runner.Run({V<float>({1, 2}), V<float>({1, 2, 3})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("Input 0: [2] != input 1: [3]"));
  absl::StatusOr<std::vector<PartialTensorShape>> shapes =
      InferShapes(MakeNodeDef("sum", "AddN", {{"N", 2}, {"T", DT_FLOAT}}),
                  {PartialTensorShape({2, 3}), PartialTensorShape({3, 3})});
  EXPECT_FALSE(shapes.ok());
  absl::StatusOr<std::vector<PartialTensorShape>> merged =
      InferShapes(MakeNodeDef("sum", "AddN", {{"N", 2}, {"T", DT_FLOAT}}),
                  {PartialTensorShape({2, -1}), PartialTensorShape({-1, 3})});
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ((*merged)[0], PartialTensorShape({2, 3}));
}

}  // namespace
}  // namespace minitf
