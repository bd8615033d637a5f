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

}  // namespace minitf::ops
