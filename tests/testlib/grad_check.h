// GradientError: the largest difference between the symbolic and the
// numeric Jacobian (ComputeGradientError) of y = build(xs), the xs being
// placeholders of `dtype` and of `x_shapes`, for the gradient tests.
//
//   EXPECT_LT(test::GradientError({{2, 3}}, {2, 3},
//                                 [](const Scope& s, const std::vector<Output>& x) {
//                                   return ops::Tanh(s, x[0]);
//                                 }),
//             1e-6);
#ifndef MINITF_TESTS_TESTLIB_GRAD_CHECK_H_
#define MINITF_TESTS_TESTLIB_GRAD_CHECK_H_

#include <functional>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/array_ops.h"
#include "session/gradient_checker.h"

namespace minitf::test {

using GradBuilder = std::function<Output(const Scope&, const std::vector<Output>& xs)>;

// The error at the point `x_values` (one tensor per x, which sets its type
// and shape); infinity, with a test failure, when the check cannot run.
inline double GradientErrorAt(const std::vector<Tensor>& x_values, const TensorShape& y_shape,
                              const GradBuilder& build) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> xs;
  for (size_t i = 0; i < x_values.size(); ++i) {
    xs.push_back(ops::Placeholder(root.WithOpName("x" + std::to_string(i)), x_values[i].dtype()));
  }
  Output y = build(root, xs);
  double error = 0;
  absl::Status s = ComputeGradientError(root, xs, x_values, {y}, {y_shape}, &error);
  if (!s.ok()) {
    ADD_FAILURE() << s;
    return std::numeric_limits<double>::infinity();
  }
  return error;
}

// The error at random xs, uniform in [-1, 1].
inline double GradientError(const std::vector<TensorShape>& x_shapes, const TensorShape& y_shape,
                            const GradBuilder& build, DataType dtype = DT_DOUBLE) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> xs;
  for (size_t i = 0; i < x_shapes.size(); ++i) {
    xs.push_back(ops::Placeholder(root.WithOpName("x" + std::to_string(i)), dtype));
  }
  Output y = build(root, xs);
  double error = 0;
  absl::Status s = ComputeGradientError(root, xs, x_shapes, {y}, {y_shape}, &error);
  if (!s.ok()) {
    ADD_FAILURE() << s;
    return std::numeric_limits<double>::infinity();
  }
  return error;
}

}  // namespace minitf::test

#endif  // MINITF_TESTS_TESTLIB_GRAD_CHECK_H_
