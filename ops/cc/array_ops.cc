#include "ops/cc/array_ops.h"

namespace minitf::ops {

Output Const(const Scope& scope, const Tensor& value) { return ConstFromTensor(scope, value); }

Output Const(const Scope& scope, const Input& value) {
  if (!value.is_constant()) return Identity(scope, value);
  return ConstFromTensor(scope, value.constant());
}

Output Placeholder(const Scope& scope, DataType dtype, const PlaceholderAttrs& attrs) {
  return OpBuilder(scope, "Placeholder")
      .Attr("dtype", dtype)
      .Attr("shape", attrs.shape)
      .Finalize1();
}

Output Identity(const Scope& scope, Input input) {
  return OpBuilder(scope, "Identity").Input(input).Finalize1();
}

Output NoOp(const Scope& scope) { return OpBuilder(scope, "NoOp").FinalizeNode(); }

Output Reshape(const Scope& scope, Input tensor, Input shape) {
  return OpBuilder(scope, "Reshape").Input(tensor).Input(shape).Finalize1();
}

Output Shape(const Scope& scope, Input input, const ShapeAttrs& attrs) {
  return OpBuilder(scope, "Shape").Input(input).Attr("out_type", attrs.out_type).Finalize1();
}

Output Fill(const Scope& scope, Input dims, Input value) {
  return OpBuilder(scope, "Fill").Input(dims).Input(value).Finalize1();
}

Output ZerosLike(const Scope& scope, Input x) {
  return OpBuilder(scope, "ZerosLike").Input(x).Finalize1();
}

Output OnesLike(const Scope& scope, Input x) {
  return OpBuilder(scope, "OnesLike").Input(x).Finalize1();
}

Output Transpose(const Scope& scope, Input x, Input perm) {
  return OpBuilder(scope, "Transpose").Input(x).Input(perm).Finalize1();
}

}  // namespace minitf::ops
