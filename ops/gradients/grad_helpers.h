// What the gradient functions of ops/gradients/ share: reducing a
// broadcast gradient back to an operand's shape, the shape a reduction
// keeps, and building an op with attrs copied from the forward node.
#ifndef MINITF_OPS_GRADIENTS_GRAD_HELPERS_H_
#define MINITF_OPS_GRADIENTS_GRAD_HELPERS_H_

#include <initializer_list>
#include <vector>

#include "absl/status/status.h"
#include "ops/cc/grad_op_registry.h"

namespace minitf::grad {

// dx and dy of z = f(x, y) with NumPy broadcasting, given the gradients
// `gx` and `gy` at z's (broadcast) shape: each summed over the dimensions
// along which its operand was broadcast (BroadcastGradientArgs) and
// reshaped to the operand's shape.
void ReduceBroadcast(const Scope& scope, const Output& x, const Output& y, const Output& gx,
                     const Output& gy, std::vector<Output>* grad_outputs);

// `grad`, of a shape `x` broadcasts to, summed back to x's shape.
Output ReduceTo(const Scope& scope, const Output& grad, const Output& x);

// The shape of a reduction of a tensor of shape `input_shape` (int32) over
// `axes` with keep_dims: 1 along the reduced dimensions.
Output ReducedShape(const Scope& scope, const Output& input_shape, const Input& axes);

// A node of type `op_type` on `inputs` with the attrs `attrs` of `from`
// (those it has); its outputs.
std::vector<Output> WithAttrsOf(const Scope& scope, const char* op_type,
                                const std::vector<Input>& inputs, const Operation& from,
                                std::initializer_list<const char*> attrs);

// Whether `grad` is known to be zero: the ZerosLike AddSymbolicGradients
// passes for an output that does not reach the loss.
bool IsZeros(const Scope& scope, const Output& grad);

}  // namespace minitf::grad

#endif  // MINITF_OPS_GRADIENTS_GRAD_HELPERS_H_
