#include "ops/cc/state_ops.h"

#include "ops/cc/apply_op_inputs.h"

namespace minitf::ops {

Output Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                const VariableAttrs& attrs) {
  return OpBuilder(scope, "Variable")
      .Attr("shape", shape)
      .Attr("dtype", dtype)
      .Attr("container", attrs.container)
      .Attr("shared_name", attrs.shared_name)
      .Finalize1();
}

Output VariableV2(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                  const VariableAttrs& attrs) {
  return OpBuilder(scope, "VariableV2")
      .Attr("shape", shape)
      .Attr("dtype", dtype)
      .Attr("container", attrs.container)
      .Attr("shared_name", attrs.shared_name)
      .Finalize1();
}

Output Assign(const Scope& scope, Input ref, Input value, const AssignAttrs& attrs) {
  return OpBuilder(scope, "Assign")
      .Input(ref)
      .Input(value)
      .Attr("validate_shape", attrs.validate_shape)
      .Attr("use_locking", attrs.use_locking)
      .Finalize1();
}

Output AssignAdd(const Scope& scope, Input ref, Input value, const UpdateAttrs& attrs) {
  return OpBuilder(scope, "AssignAdd")
      .Input(ref)
      .Input(value)
      .Attr("use_locking", attrs.use_locking)
      .Finalize1();
}

Output ApplyGradientDescent(const Scope& scope, Input var, Input alpha, Input delta,
                            const UpdateAttrs& attrs) {
  return OpBuilder(scope, "ApplyGradientDescent")
      .Input(var)
      .Input(alpha)
      .Input(delta)
      .Attr("use_locking", attrs.use_locking)
      .Finalize1();
}

Output AssignSub(const Scope& scope, Input ref, Input value, const UpdateAttrs& attrs) {
  return OpBuilder(scope, "AssignSub")
      .Input(ref)
      .Input(value)
      .Attr("use_locking", attrs.use_locking)
      .Finalize1();
}

Output ScatterAdd(const Scope& scope, Input ref, Input indices, Input updates,
                  const UpdateAttrs& attrs) {
  return OpBuilder(scope, "ScatterAdd")
      .Input(ref)
      .Input(indices)
      .Input(updates)
      .Attr("use_locking", attrs.use_locking)
      .Finalize1();
}

Output ApplyMomentum(const Scope& scope, Input var, Input accum, Input lr, Input grad,
                     Input momentum, const ApplyAttrs& attrs) {
  OpBuilder b(scope, "ApplyMomentum");
  return internal::AddMomentumInputs(b, var, accum, lr, grad, momentum, attrs).Finalize1();
}

Output ApplyAdam(const Scope& scope, Input var, Input m, Input v, const AdamInputs& in,
                 const ApplyAttrs& attrs) {
  OpBuilder b(scope, "ApplyAdam");
  return internal::AddAdamInputs(b, var, m, v, in, attrs).Finalize1();
}

namespace internal {

OpBuilder& AddMomentumInputs(OpBuilder& b, Input var, Input accum, Input lr, Input grad,
                             Input momentum, const ApplyAttrs& attrs) {
  return b.Input(var)
      .Input(accum)
      .Input(lr)
      .Input(grad)
      .Input(momentum)
      .Attr("use_locking", attrs.use_locking)
      .Attr("use_nesterov", attrs.use_nesterov);
}

OpBuilder& AddAdamInputs(OpBuilder& b, Input var, Input m, Input v, const AdamInputs& in,
                         const ApplyAttrs& attrs) {
  return b.Input(var)
      .Input(m)
      .Input(v)
      .Input(in.beta1_power)
      .Input(in.beta2_power)
      .Input(in.lr)
      .Input(in.beta1)
      .Input(in.beta2)
      .Input(in.epsilon)
      .Input(in.grad)
      .Attr("use_locking", attrs.use_locking)
      .Attr("use_nesterov", attrs.use_nesterov);
}

}  // namespace internal

}  // namespace minitf::ops
