#include "ops/cc/resource_variable_ops.h"

#include "ops/cc/apply_op_inputs.h"

namespace minitf::ops {

Output VarHandleOp(const Scope& scope, DataType dtype, const PartialTensorShape& shape,
                   const VariableAttrs& attrs) {
  return OpBuilder(scope, "VarHandleOp")
      .Attr("dtype", dtype)
      .Attr("shape", shape)
      .Attr("container", attrs.container)
      .Attr("shared_name", attrs.shared_name)
      .Finalize1();
}

Output ReadVariableOp(const Scope& scope, Input resource, DataType dtype) {
  return OpBuilder(scope, "ReadVariableOp").Input(resource).Attr("dtype", dtype).Finalize1();
}

Output AssignVariableOp(const Scope& scope, Input resource, Input value,
                        const AssignVariableAttrs& attrs) {
  return OpBuilder(scope, "AssignVariableOp")
      .Input(resource)
      .Input(value)
      .Attr("validate_shape", attrs.validate_shape)
      .FinalizeNode();
}

Output AssignAddVariableOp(const Scope& scope, Input resource, Input value) {
  return OpBuilder(scope, "AssignAddVariableOp").Input(resource).Input(value).FinalizeNode();
}

Output AssignSubVariableOp(const Scope& scope, Input resource, Input value) {
  return OpBuilder(scope, "AssignSubVariableOp").Input(resource).Input(value).FinalizeNode();
}

Output VarIsInitializedOp(const Scope& scope, Input resource) {
  return OpBuilder(scope, "VarIsInitializedOp").Input(resource).Finalize1();
}

Output DestroyResourceOp(const Scope& scope, Input resource, bool ignore_lookup_error) {
  return OpBuilder(scope, "DestroyResourceOp")
      .Input(resource)
      .Attr("ignore_lookup_error", ignore_lookup_error)
      .FinalizeNode();
}

Output ResourceApplyGradientDescent(const Scope& scope, Input var, Input alpha, Input delta,
                                    const UpdateAttrs& attrs) {
  return OpBuilder(scope, "ResourceApplyGradientDescent")
      .Input(var)
      .Input(alpha)
      .Input(delta)
      .Attr("use_locking", attrs.use_locking)
      .FinalizeNode();
}

Output ResourceApplyMomentum(const Scope& scope, Input var, Input accum, Input lr, Input grad,
                             Input momentum, const ApplyAttrs& attrs) {
  OpBuilder b(scope, "ResourceApplyMomentum");
  return internal::AddMomentumInputs(b, var, accum, lr, grad, momentum, attrs).FinalizeNode();
}

Output ResourceApplyAdam(const Scope& scope, Input var, Input m, Input v, const AdamInputs& in,
                         const ApplyAttrs& attrs) {
  OpBuilder b(scope, "ResourceApplyAdam");
  return internal::AddAdamInputs(b, var, m, v, in, attrs).FinalizeNode();
}

}  // namespace minitf::ops
