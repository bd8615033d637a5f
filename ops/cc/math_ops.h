// Graph-builder functions for the math ops: elementwise binary ops with
// broadcasting, the unary ops' gradient helpers, comparisons and logical ops
// (bool results), elementwise unary ops, Cast, Select and SelectV2, the
// reductions, ArgMax, BatchMatMul and BatchMatMulV2.
//
//   auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {-1, 3}});
//   auto y = ops::Mul(root, ops::Add(root, x, 1.0f), x);   // (x + 1) * x
//   auto in_range = ops::LogicalAnd(root, ops::GreaterEqual(root, x, 0.0f),
//                                   ops::Less(root, x, 1.0f));  // bool, [?,3]
//   auto n = ops::Cast(root, y, DT_INT32);
//   auto s = ops::Sum(root, y, {0}, {.keep_dims = true});   // shape [1,3]
//   auto scores = ops::BatchMatMul(root, q, k, {.adj_y = true});  // [B,T,D], [B,T,D] -> [B,T,T]
//
// Literal operands become Const nodes of the other operand's type.
#ifndef MINITF_OPS_CC_MATH_OPS_H_
#define MINITF_OPS_CC_MATH_OPS_H_

#include "ops/cc/scope.h"

namespace minitf::ops {

// z = x op y elementwise, with NumPy broadcasting of x and y.
Output Add(const Scope& scope, Input x, Input y);
Output Sub(const Scope& scope, Input x, Input y);
Output Mul(const Scope& scope, Input x, Input y);
// Integer division truncates toward zero; an integer divisor of 0 fails the step.
Output Div(const Scope& scope, Input x, Input y);
Output Maximum(const Scope& scope, Input x, Input y);
Output Minimum(const Scope& scope, Input x, Input y);
// Add as TensorFlow 2.x graphs spell it.
Output AddV2(const Scope& scope, Input x, Input y);
// x / y for float and double.
Output RealDiv(const Scope& scope, Input x, Input y);
// Division rounding toward negative infinity, and its remainder (which has
// y's sign); an integer divisor of 0 fails the step.
Output FloorDiv(const Scope& scope, Input x, Input y);
Output FloorMod(const Scope& scope, Input x, Input y);
// x^y; a negative integer exponent fails the step.
Output Pow(const Scope& scope, Input x, Input y);
// (x - y)^2.
Output SquaredDifference(const Scope& scope, Input x, Input y);

// dL/dx of x -> y = f(x) from y and dy = dL/dy (one shape, no broadcasting),
// for f = Rsqrt, Sqrt, Reciprocal, Sigmoid and Tanh; float or double.
Output RsqrtGrad(const Scope& scope, Input y, Input dy);
Output SqrtGrad(const Scope& scope, Input y, Input dy);
Output ReciprocalGrad(const Scope& scope, Input y, Input dy);
Output SigmoidGrad(const Scope& scope, Input y, Input dy);
Output TanhGrad(const Scope& scope, Input y, Input dy);

// z = x op y elementwise, with NumPy broadcasting of x and y; z is bool. x
// and y are float, double, int32 or int64 (also bool for Equal and
// NotEqual). As in IEEE 754, a NaN compares false with everything, itself
// included: every comparison with a NaN is false except NotEqual.
Output Less(const Scope& scope, Input x, Input y);
Output LessEqual(const Scope& scope, Input x, Input y);
Output Greater(const Scope& scope, Input x, Input y);
Output GreaterEqual(const Scope& scope, Input x, Input y);

struct EqualAttrs {
  // Operands that cannot broadcast fail the step; with false, they give a
  // scalar instead: false for Equal, true for NotEqual.
  bool incompatible_shape_error = true;
};
Output Equal(const Scope& scope, Input x, Input y, const EqualAttrs& attrs = {});
Output NotEqual(const Scope& scope, Input x, Input y, const EqualAttrs& attrs = {});

// Logical connectives of bools; the binary ones broadcast x and y.
Output LogicalAnd(const Scope& scope, Input x, Input y);
Output LogicalOr(const Scope& scope, Input x, Input y);
Output LogicalNot(const Scope& scope, Input x);

// y = f(x) elementwise. Sqrt, Rsqrt, Exp, Log, Reciprocal and Erf take
// float or double only.
Output Neg(const Scope& scope, Input x);
Output Square(const Scope& scope, Input x);
Output Sqrt(const Scope& scope, Input x);
Output Rsqrt(const Scope& scope, Input x);
Output Exp(const Scope& scope, Input x);
Output Log(const Scope& scope, Input x);
Output Abs(const Scope& scope, Input x);
// -1, 0 or 1; NaN stays NaN.
Output Sign(const Scope& scope, Input x);
Output Reciprocal(const Scope& scope, Input x);
Output Erf(const Scope& scope, Input x);
// 1 - erf(x), exact for large x.
Output Erfc(const Scope& scope, Input x);

// The elementwise sum of tensors of one shape and type.
Output AddN(const Scope& scope, const InputList& inputs);

// condition ? t : e elementwise. Select (v1): condition has t's shape, is a
// scalar, or is a vector picking whole rows of t; t and e have one shape.
// SelectV2 broadcasts all three.
Output Select(const Scope& scope, Input condition, Input t, Input e);
Output SelectV2(const Scope& scope, Input condition, Input t, Input e);

// x converted to `dst_type`.
Output Cast(const Scope& scope, Input x, DataType dst_type);

struct ReductionAttrs {
  // Keep each reduced dimension with size 1 instead of removing it.
  bool keep_dims = false;
};
// Reduce `input` over `axes` (an int32 or int64 scalar or vector; negative
// axes count from the end; no axes returns the input).
Output Sum(const Scope& scope, Input input, Input axes, const ReductionAttrs& attrs = {});
Output Mean(const Scope& scope, Input input, Input axes, const ReductionAttrs& attrs = {});
Output Max(const Scope& scope, Input input, Input axes, const ReductionAttrs& attrs = {});
Output Min(const Scope& scope, Input input, Input axes, const ReductionAttrs& attrs = {});
Output Prod(const Scope& scope, Input input, Input axes, const ReductionAttrs& attrs = {});

struct ArgMaxAttrs {
  DataType output_type = DT_INT64;  // DT_INT32 or DT_INT64.
};
// The index of the largest element along `dimension` (an int32 or int64
// scalar; negative counts from the end); ties give the first index.
Output ArgMax(const Scope& scope, Input input, Input dimension, const ArgMaxAttrs& attrs = {});

struct BatchMatMulAttrs {
  bool adj_x = false;  // Use the adjoint (transpose) of each matrix of x.
  bool adj_y = false;  // Use the adjoint (transpose) of each matrix of y.
};
// output[..., :, :] = op(x[..., :, :]) * op(y[..., :, :]): x [..., M, K] and
// y [..., K, N] (before op) of one rank >= 2 and equal batch dimensions give
// [..., M, N]. No broadcasting of the batch dimensions.
Output BatchMatMul(const Scope& scope, Input x, Input y, const BatchMatMulAttrs& attrs = {});
// BatchMatMul whose batch dimensions broadcast: x [..., M, K] and
// y [..., K, N] (before op) of any ranks >= 2, e.g. [B, T, D] x [D, E]
// gives [B, T, E].
Output BatchMatMulV2(const Scope& scope, Input x, Input y, const BatchMatMulAttrs& attrs = {});

}  // namespace minitf::ops

#endif  // MINITF_OPS_CC_MATH_OPS_H_
