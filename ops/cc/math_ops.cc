#include "ops/cc/math_ops.h"

namespace minitf::ops {
namespace {

Output BinaryOp(const Scope& scope, const char* op, const Input& x, const Input& y) {
  return OpBuilder(scope, op).Input(x).Input(y).Finalize1();
}

Output EqualityOp(const Scope& scope, const char* op, const Input& x, const Input& y,
                  const EqualAttrs& attrs) {
  return OpBuilder(scope, op)
      .Input(x)
      .Input(y)
      .Attr("incompatible_shape_error", attrs.incompatible_shape_error)
      .Finalize1();
}

Output UnaryOp(const Scope& scope, const char* op, const Input& x) {
  return OpBuilder(scope, op).Input(x).Finalize1();
}

Output ReductionOp(const Scope& scope, const char* op, const Input& input, const Input& axes,
                   const ReductionAttrs& attrs) {
  return OpBuilder(scope, op)
      .Input(input)
      .Input(axes)
      .Attr("keep_dims", attrs.keep_dims)
      .Finalize1();
}

}  // namespace

Output Add(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "Add", x, y); }
Output Sub(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "Sub", x, y); }
Output Mul(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "Mul", x, y); }
Output Div(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "Div", x, y); }
Output Maximum(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "Maximum", x, y); }
Output Minimum(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "Minimum", x, y); }
Output AddV2(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "AddV2", x, y); }
Output RealDiv(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "RealDiv", x, y); }
Output FloorDiv(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "FloorDiv", x, y); }
Output FloorMod(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "FloorMod", x, y); }
Output Pow(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "Pow", x, y); }
Output SquaredDifference(const Scope& scope, Input x, Input y) {
  return BinaryOp(scope, "SquaredDifference", x, y);
}

Output RsqrtGrad(const Scope& scope, Input y, Input dy) {
  return BinaryOp(scope, "RsqrtGrad", y, dy);
}
Output SqrtGrad(const Scope& scope, Input y, Input dy) {
  return BinaryOp(scope, "SqrtGrad", y, dy);
}
Output ReciprocalGrad(const Scope& scope, Input y, Input dy) {
  return BinaryOp(scope, "ReciprocalGrad", y, dy);
}
Output SigmoidGrad(const Scope& scope, Input y, Input dy) {
  return BinaryOp(scope, "SigmoidGrad", y, dy);
}
Output TanhGrad(const Scope& scope, Input y, Input dy) {
  return BinaryOp(scope, "TanhGrad", y, dy);
}

Output Less(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "Less", x, y); }
Output LessEqual(const Scope& scope, Input x, Input y) {
  return BinaryOp(scope, "LessEqual", x, y);
}
Output Greater(const Scope& scope, Input x, Input y) { return BinaryOp(scope, "Greater", x, y); }
Output GreaterEqual(const Scope& scope, Input x, Input y) {
  return BinaryOp(scope, "GreaterEqual", x, y);
}
Output Equal(const Scope& scope, Input x, Input y, const EqualAttrs& attrs) {
  return EqualityOp(scope, "Equal", x, y, attrs);
}
Output NotEqual(const Scope& scope, Input x, Input y, const EqualAttrs& attrs) {
  return EqualityOp(scope, "NotEqual", x, y, attrs);
}

Output LogicalAnd(const Scope& scope, Input x, Input y) {
  return BinaryOp(scope, "LogicalAnd", x, y);
}
Output LogicalOr(const Scope& scope, Input x, Input y) {
  return BinaryOp(scope, "LogicalOr", x, y);
}
Output LogicalNot(const Scope& scope, Input x) { return UnaryOp(scope, "LogicalNot", x); }

Output Neg(const Scope& scope, Input x) { return UnaryOp(scope, "Neg", x); }
Output Square(const Scope& scope, Input x) { return UnaryOp(scope, "Square", x); }
Output Sqrt(const Scope& scope, Input x) { return UnaryOp(scope, "Sqrt", x); }
Output Exp(const Scope& scope, Input x) { return UnaryOp(scope, "Exp", x); }
Output Log(const Scope& scope, Input x) { return UnaryOp(scope, "Log", x); }
Output Rsqrt(const Scope& scope, Input x) { return UnaryOp(scope, "Rsqrt", x); }
Output Abs(const Scope& scope, Input x) { return UnaryOp(scope, "Abs", x); }
Output Sign(const Scope& scope, Input x) { return UnaryOp(scope, "Sign", x); }
Output Reciprocal(const Scope& scope, Input x) { return UnaryOp(scope, "Reciprocal", x); }
Output Erf(const Scope& scope, Input x) { return UnaryOp(scope, "Erf", x); }
Output Erfc(const Scope& scope, Input x) { return UnaryOp(scope, "Erfc", x); }

Output AddN(const Scope& scope, const InputList& inputs) {
  return OpBuilder(scope, "AddN").InputList(inputs).Finalize1();
}

Output Select(const Scope& scope, Input condition, Input t, Input e) {
  return OpBuilder(scope, "Select").Input(condition).Input(t).Input(e).Finalize1();
}
Output SelectV2(const Scope& scope, Input condition, Input t, Input e) {
  return OpBuilder(scope, "SelectV2").Input(condition).Input(t).Input(e).Finalize1();
}

Output Cast(const Scope& scope, Input x, DataType dst_type) {
  return OpBuilder(scope, "Cast").Input(x).Attr("DstT", dst_type).Finalize1();
}

Output Sum(const Scope& scope, Input input, Input axes, const ReductionAttrs& attrs) {
  return ReductionOp(scope, "Sum", input, axes, attrs);
}
Output Mean(const Scope& scope, Input input, Input axes, const ReductionAttrs& attrs) {
  return ReductionOp(scope, "Mean", input, axes, attrs);
}
Output Max(const Scope& scope, Input input, Input axes, const ReductionAttrs& attrs) {
  return ReductionOp(scope, "Max", input, axes, attrs);
}
Output Min(const Scope& scope, Input input, Input axes, const ReductionAttrs& attrs) {
  return ReductionOp(scope, "Min", input, axes, attrs);
}
Output Prod(const Scope& scope, Input input, Input axes, const ReductionAttrs& attrs) {
  return ReductionOp(scope, "Prod", input, axes, attrs);
}

Output ArgMax(const Scope& scope, Input input, Input dimension, const ArgMaxAttrs& attrs) {
  return OpBuilder(scope, "ArgMax")
      .Input(input)
      .Input(dimension)
      .Attr("output_type", attrs.output_type)
      .Finalize1();
}

Output BatchMatMul(const Scope& scope, Input x, Input y, const BatchMatMulAttrs& attrs) {
  return OpBuilder(scope, "BatchMatMul")
      .Input(x)
      .Input(y)
      .Attr("adj_x", attrs.adj_x)
      .Attr("adj_y", attrs.adj_y)
      .Finalize1();
}

Output BatchMatMulV2(const Scope& scope, Input x, Input y, const BatchMatMulAttrs& attrs) {
  return OpBuilder(scope, "BatchMatMulV2")
      .Input(x)
      .Input(y)
      .Attr("adj_x", attrs.adj_x)
      .Attr("adj_y", attrs.adj_y)
      .Finalize1();
}

}  // namespace minitf::ops
