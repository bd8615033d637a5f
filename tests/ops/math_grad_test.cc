// The math ops' gradients against central differences (ComputeGradientError),
// broadcasting included, after TensorFlow's cc/gradients/math_grad_test.cc.
#include <functional>

#include "gtest/gtest.h"
#include "ops/cc/math_ops.h"
#include "ops/cc/nn_ops.h"
#include "tests/testlib/grad_check.h"

namespace minitf {
namespace {

using test::GradientError;
using test::GradientErrorAt;
using Xs = std::vector<Output>;
using BinaryFn = std::function<Output(const Scope&, Input, Input)>;

constexpr double kTolerance = 1e-5;  // double, delta 1e-3: truncation error ~ delta^2 f''' / 6

// z = op(x, y) over same shapes and two broadcasting pairs.
void ExpectBinaryGradient(const char* name, const BinaryFn& op, const BinaryFn& shift_y = nullptr) {
  struct Case {
    TensorShape x, y, z;
  };
  const Case cases[] = {{{2, 3}, {2, 3}, {2, 3}},
                        {{2, 3}, {3}, {2, 3}},
                        {{2, 1}, {1, 3}, {2, 3}},
                        {{}, {2, 2}, {2, 2}}};
  for (const Case& c : cases) {
    const double error = GradientError({c.x, c.y}, c.z, [&](const Scope& s, const Xs& x) {
      return op(s, x[0], shift_y ? shift_y(s, x[1], 0) : Output(x[1]));
    });
    EXPECT_LT(error, kTolerance) << name << " " << c.x.DebugString() << " " << c.y.DebugString();
  }
}

TEST(MathGradTest, AddSubMulBroadcast) {
  ExpectBinaryGradient("Add", ops::Add);
  ExpectBinaryGradient("AddV2", ops::AddV2);
  ExpectBinaryGradient("Sub", ops::Sub);
  ExpectBinaryGradient("Mul", ops::Mul);
  ExpectBinaryGradient("SquaredDifference", ops::SquaredDifference);
}

TEST(MathGradTest, DivisionAwayFromZero) {
  // y + 2.5 lies in [1.5, 3.5].
  auto shift = [](const Scope& s, Input y, Input) { return ops::Add(s, y, 2.5); };
  ExpectBinaryGradient("Div", ops::Div, shift);
  ExpectBinaryGradient("RealDiv", ops::RealDiv, shift);
}

TEST(MathGradTest, MaximumMinimumRouteToTheWinner) {
  ExpectBinaryGradient("Maximum", ops::Maximum);
  ExpectBinaryGradient("Minimum", ops::Minimum);
}

TEST(MathGradTest, PowOfPositiveBase) {
  EXPECT_LT(GradientError({{2, 3}, {3}}, {2, 3},
                          [](const Scope& s, const Xs& x) {
                            return ops::Pow(s, ops::Add(s, x[0], 2.0), x[1]);
                          }),
            kTolerance);
}

TEST(MathGradTest, FloorModAwayFromItsSteps) {
  Tensor x = Tensor::FromVector<double>({0.7, 2.3, -1.6}, TensorShape({3}));
  Tensor y = Tensor::FromVector<double>({0.5, 1.1, 0.9}, TensorShape({3}));
  EXPECT_LT(GradientErrorAt({x, y}, {3},
                            [](const Scope& s, const Xs& v) { return ops::FloorMod(s, v[0], v[1]); }),
            kTolerance);
}

using UnaryFn = std::function<Output(const Scope&, Input)>;

void ExpectUnaryGradient(const char* name, const UnaryFn& op, bool positive = false) {
  const double error = GradientError({{2, 3}}, {2, 3}, [&](const Scope& s, const Xs& x) {
    return op(s, positive ? ops::Add(s, x[0], 1.5) : Output(x[0]));
  });
  EXPECT_LT(error, kTolerance) << name;
}

TEST(MathGradTest, UnaryOps) {
  ExpectUnaryGradient("Neg", ops::Neg);
  ExpectUnaryGradient("Square", ops::Square);
  ExpectUnaryGradient("Exp", ops::Exp);
  ExpectUnaryGradient("Abs", ops::Abs);
  ExpectUnaryGradient("Sign", ops::Sign);
  ExpectUnaryGradient("Erf", ops::Erf);
  ExpectUnaryGradient("Erfc", ops::Erfc);
  ExpectUnaryGradient("Sigmoid", ops::Sigmoid);
  ExpectUnaryGradient("Tanh", ops::Tanh);
  ExpectUnaryGradient("Log", ops::Log, /*positive=*/true);
  ExpectUnaryGradient("Sqrt", ops::Sqrt, /*positive=*/true);
  ExpectUnaryGradient("Rsqrt", ops::Rsqrt, /*positive=*/true);
  ExpectUnaryGradient("Reciprocal", ops::Reciprocal, /*positive=*/true);
}

// The second derivatives: the gradient ops are differentiated in both inputs.
TEST(MathGradTest, GradientsOfTheUnaryGradientOps) {
  const std::vector<std::pair<const char*, BinaryFn>> grad_ops = {
      {"SigmoidGrad", ops::SigmoidGrad}, {"TanhGrad", ops::TanhGrad},
      {"RsqrtGrad", ops::RsqrtGrad},     {"SqrtGrad", ops::SqrtGrad},
      {"ReciprocalGrad", ops::ReciprocalGrad}};
  for (const auto& entry : grad_ops) {
    const BinaryFn& op = entry.second;
    const double error = GradientError({{2, 3}, {2, 3}}, {2, 3}, [&](const Scope& s, const Xs& x) {
      return op(s, ops::Add(s, x[0], 1.5), x[1]);
    });
    EXPECT_LT(error, kTolerance) << entry.first;
  }
}

TEST(MathGradTest, AddNSumsEveryInputIncludingRepeats) {
  EXPECT_LT(GradientError({{2, 2}, {2, 2}}, {2, 2},
                          [](const Scope& s, const Xs& x) {
                            return ops::AddN(s, {x[0], x[1], x[0]});
                          }),
            kTolerance);
}

TEST(MathGradTest, CastBetweenFloatTypes) {
  // Through float: the difference quotient has float's rounding.
  EXPECT_LT(GradientError({{3}}, {3},
                          [](const Scope& s, const Xs& x) {
                            return ops::Cast(s, ops::Mul(s, ops::Cast(s, x[0], DT_FLOAT), 3.0f),
                                             DT_DOUBLE);
                          }),
            1e-3);
}

TEST(MathGradTest, SelectSplitsTheGradient) {
  // Elementwise condition, and a vector condition picking rows.
  EXPECT_LT(GradientError({{2, 3}, {2, 3}}, {2, 3},
                          [](const Scope& s, const Xs& x) {
                            auto c = ops::Greater(s, ops::Const(s, Tensor::FromVector<double>(
                                                                       {1, -1, 2, -2, 3, -3},
                                                                       TensorShape({2, 3}))),
                                                  0.0);
                            return ops::Select(s, c, x[0], x[1]);
                          }),
            kTolerance);
  EXPECT_LT(GradientError({{2, 3}, {2, 3}}, {2, 3},
                          [](const Scope& s, const Xs& x) {
                            return ops::Select(s, Input(Tensor::FromVector<bool>({true, false},
                                                                                TensorShape({2}))),
                                               x[0], x[1]);
                          }),
            kTolerance);
}

TEST(MathGradTest, SelectV2BroadcastsAllThree) {
  EXPECT_LT(GradientError({{1, 3}, {3}}, {2, 3},
                          [](const Scope& s, const Xs& x) {
                            Input c(Tensor::FromVector<bool>({true, false}, TensorShape({2, 1})));
                            return ops::SelectV2(s, c, x[0], x[1]);
                          }),
            kTolerance);
}

}  // namespace
}  // namespace minitf
