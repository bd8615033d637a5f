// The gradients of the reductions: g, at the reduced shape, is broadcast
// back over the reduced dimensions (TensorFlow's math_grad.py).
#include "ops/cc/array_ops.h"
#include "ops/cc/math_ops.h"
#include "ops/gradients/grad_helpers.h"

namespace minitf {
namespace {

using Grads = std::vector<Output>;

// g spread over x's shape: reshaped to keep the reduced dimensions (size 1),
// then broadcast.
Output SpreadOverInput(const Scope& s, const Operation& op, const Output& g) {
  auto shape = ops::Shape(s, op.input(0));
  auto kept = ops::Reshape(s, g, grad::ReducedShape(s, shape, op.input(1)));
  return ops::BroadcastTo(s, kept, shape);
}

absl::Status SumGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = {SpreadOverInput(s, op, g[0]), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("Sum", SumGrad);

// Sum's gradient over the number of elements each output averages.
absl::Status MeanGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto in_size = ops::Size(s, op.input(0));
  auto out_size = ops::Maximum(s, ops::Size(s, op.output(0)), 1);
  auto count = ops::Cast(s, ops::FloorDiv(s, in_size, out_size), RemoveRefType(g[0].type()));
  *out = {ops::Div(s, SpreadOverInput(s, op, g[0]), count), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("Mean", MeanGrad);

// Max and Min: the gradient is shared equally by the elements equal to the
// result.
absl::Status MinMaxGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output& x = op.input(0);
  auto kept_shape = grad::ReducedShape(s, ops::Shape(s, x), op.input(1));
  auto z = ops::Reshape(s, op.output(0), kept_shape);
  auto hits = ops::Cast(s, ops::Equal(s, z, x), RemoveRefType(x.type()));
  auto count = ops::Reshape(s, ops::Sum(s, hits, op.input(1)), kept_shape);
  auto share = ops::Div(s, hits, count);
  *out = {ops::Mul(s, share, ops::Reshape(s, g[0], kept_shape)), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("Max", MinMaxGrad);
REGISTER_GRADIENT_OP("Min", MinMaxGrad);

// Prod: d prod / d x_i is the product of the others. Without zeros that is
// prod / x_i; with one zero, the zero's entry gets the product of the
// nonzero entries and the others 0; with more, every entry gets 0.
// (TensorFlow multiplies cumulative products instead of dividing; minitf has
// no cumulative product op.)
absl::Status ProdGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output& x = op.input(0);
  const Output& axes = op.input(1);
  auto kept_shape = grad::ReducedShape(s, ops::Shape(s, x), axes);
  auto is_zero = ops::Equal(s, x, ops::ZerosLike(s, x));
  auto safe = ops::SelectV2(s, is_zero, ops::OnesLike(s, x), x);
  auto nonzero_product = ops::Prod(s, safe, axes, {.keep_dims = true});
  auto zeros = ops::Sum(s, ops::Cast(s, is_zero, DT_INT32), axes, {.keep_dims = true});
  auto only_zero = ops::LogicalAnd(s, ops::Equal(s, zeros, 1), is_zero);
  auto if_one_zero = ops::SelectV2(s, only_zero, nonzero_product, ops::ZerosLike(s, x));
  auto others = ops::SelectV2(s, ops::Equal(s, zeros, 0), ops::Div(s, nonzero_product, safe),
                              if_one_zero);
  *out = {ops::Mul(s, others, ops::Reshape(s, g[0], kept_shape)), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("Prod", ProdGrad);

}  // namespace
}  // namespace minitf
