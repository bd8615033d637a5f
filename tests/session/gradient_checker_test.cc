// ComputeGradientError: it finds a gradient that is wrong, and names what
// is wrong with its arguments.
#include "session/gradient_checker.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

TEST(GradientCheckerTest, ARightGradientHasASmallError) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::Mul(root, x, x);
  double error = -1;
  ASSERT_TRUE(ComputeGradientError(root, {x}, {TensorShape({2, 2})}, {y}, {TensorShape({2, 2})},
                                   &error)
                  .ok());
  EXPECT_GE(error, 0.0);
  EXPECT_LT(error, 1e-8);
}

TEST(GradientCheckerTest, AWrongGradientHasALargeError) {
  // x * StopGradient(x): the symbolic gradient is x, the true one 2x; the
  // error is the largest |x|.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::Mul(root, x, ops::StopGradient(root, x));
  Tensor at = Tensor::FromVector<double>({0.5, -2.0, 1.0}, TensorShape({3}));
  double error = 0;
  ASSERT_TRUE(ComputeGradientError(root, {x}, {at}, {y}, {TensorShape({3})}, &error).ok());
  EXPECT_NEAR(error, 2.0, 1e-6);
}

TEST(GradientCheckerTest, ArgumentErrorsNameTheirArgument) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto c = ops::Const(root.WithOpName("c"), 1.0);
  auto y = ops::Exp(root, x);
  double error = 0;
  absl::Status s = ComputeGradientError(root, {c}, {TensorShape({})}, {y}, {TensorShape({})},
                                        &error);
  EXPECT_THAT(s.message(), HasSubstr("xs[0] 'c' must be a float or double Placeholder"));
  Scope r2 = Scope::NewRootScope();
  auto x2 = ops::Placeholder(r2.WithOpName("x"), DT_DOUBLE);
  s = ComputeGradientError(r2, {x2}, {TensorShape({3})}, {ops::Exp(r2, x2)}, {TensorShape({2})},
                           &error);
  EXPECT_THAT(s.message(), HasSubstr("has shape [3], y_shapes[0] says [2]"));
  Scope r3 = Scope::NewRootScope();
  auto x3 = ops::Placeholder(r3.WithOpName("x"), DT_DOUBLE);
  s = ComputeGradientError(r3, {x3}, {Tensor::FromVector<float>({1.0f}, TensorShape({1}))},
                           {ops::Exp(r3, x3)}, {TensorShape({1})}, &error);
  EXPECT_THAT(s.message(), HasSubstr("the value of xs[0] 'x' has type float"));
}

}  // namespace
}  // namespace minitf
