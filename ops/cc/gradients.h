// AddSymbolicGradients: reverse-mode differentiation of the graph under
// construction (TensorFlow's cc/framework/gradients.h).
//
//   auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
//   auto y = ops::Mul(root, ops::Square(root, x), 3.0f);   // y = 3 x^2
//   std::vector<Output> dx;
//   MINITF_RETURN_IF_ERROR(AddSymbolicGradients(root, {y}, {x}, &dx));
//   // dx[0] computes 6 x (times ones, the seed: dL/dy = 1)
//
// From the outputs back to the inputs, each op between them gets its
// registered gradient function (grad_op_registry.h); the gradients of a
// tensor used several times are summed (AddN); an op with several outputs of
// which only some reach the outputs gets zeros for the others. StopGradient,
// and every op registered as not differentiable, passes nothing back. Only
// floating-point tensors (and resource handles, through ReadVariableOp)
// carry gradients: an integer input gets none.
//
// v1 conds (ops::Cond, TensorFlow's tf.compat.v1.cond) are differentiated:
// the gradient flows back through the branch taken. While loops and nested
// conds are not: they are an Unimplemented error naming their node.
#ifndef MINITF_OPS_CC_GRADIENTS_H_
#define MINITF_OPS_CC_GRADIENTS_H_

#include <vector>

#include "absl/status/status.h"
#include "ops/cc/scope.h"

namespace minitf {

// Adds ops computing, for each of `inputs`, the gradient of
// sum_i <grad_inputs[i], outputs[i]> with respect to it, and sets
// `grad_outputs` to them, one per input. An input no output depends on gets
// an invalid Output (as tf.gradients' None). The ops are named
// "gradients/<node>_grad/...". Errors name the node whose op has no
// gradient, or the argument at fault; they are also recorded in `scope`.
absl::Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                                  const std::vector<Output>& inputs,
                                  const std::vector<Output>& grad_inputs,
                                  std::vector<Output>* grad_outputs);

// The same with each output's gradient seeded with ones (OnesLike): the
// gradient of sum(outputs[0]) + sum(outputs[1]) + ...
absl::Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                                  const std::vector<Output>& inputs,
                                  std::vector<Output>* grad_outputs);

}  // namespace minitf

#endif  // MINITF_OPS_CC_GRADIENTS_H_
