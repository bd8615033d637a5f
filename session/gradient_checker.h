// ComputeGradientError: the largest difference between the Jacobian
// AddSymbolicGradients computes and one measured by central differences
// (TensorFlow's cc/framework/gradient_checker.h).
//
//   auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
//   auto y = ops::Tanh(root, x);
//   double error = 0;
//   MINITF_RETURN_IF_ERROR(ComputeGradientError(root, {x}, {TensorShape({2, 3})}, {y},
//                                               {TensorShape({2, 3})}, &error));
//   // error is about 1e-10 for double, 1e-3 for float
//
// The xs are placeholders the checker feeds; it adds the gradient ops (and a
// placeholder per y for dL/dy) to `scope` and runs the graph on the CPU.
// The symbolic Jacobian has one run per element of the ys, the numeric one
// two runs per element of the xs: keep them small.
#ifndef MINITF_SESSION_GRADIENT_CHECKER_H_
#define MINITF_SESSION_GRADIENT_CHECKER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "ops/cc/scope.h"
#include "runtime/tensor.h"

namespace minitf {

struct GradientCheckOptions {
  // The step of the central differences (y(x + d) - y(x - d)) / 2d.
  double delta = 1e-3;
  // Seeds the random values of the xs (uniform in [-1, 1]) when none are given.
  uint32_t seed = 1;
};

// xs (float or double placeholders) take random values of `x_shapes`; the
// ys must come out with `y_shapes`. Errors name the x or y at fault.
absl::Status ComputeGradientError(const Scope& scope, const std::vector<Output>& xs,
                                  const std::vector<TensorShape>& x_shapes,
                                  const std::vector<Output>& ys,
                                  const std::vector<TensorShape>& y_shapes, double* max_error,
                                  const GradientCheckOptions& options = {});

// The same at the point `x_values` (one per x, of its type): for ops whose
// domain is not all of [-1, 1] (Log, Sqrt) or that are not smooth
// everywhere (Relu, Max).
absl::Status ComputeGradientError(const Scope& scope, const std::vector<Output>& xs,
                                  const std::vector<Tensor>& x_values,
                                  const std::vector<Output>& ys,
                                  const std::vector<TensorShape>& y_shapes, double* max_error,
                                  const GradientCheckOptions& options = {});

}  // namespace minitf

#endif  // MINITF_SESSION_GRADIENT_CHECKER_H_
