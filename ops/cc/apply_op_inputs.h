// The inputs and attrs the ref and the resource form of ApplyMomentum and
// ApplyAdam share (state_ops.cc, resource_variable_ops.cc), added to an
// OpBuilder in TensorFlow's order. Internal to ops/cc.
#ifndef MINITF_OPS_CC_APPLY_OP_INPUTS_H_
#define MINITF_OPS_CC_APPLY_OP_INPUTS_H_

#include "ops/cc/scope.h"
#include "ops/cc/state_ops.h"

namespace minitf::ops::internal {

// var, accum, lr, grad, momentum; use_locking, use_nesterov.
OpBuilder& AddMomentumInputs(OpBuilder& b, Input var, Input accum, Input lr, Input grad,
                             Input momentum, const ApplyAttrs& attrs);

// var, m, v, then Adam's inputs; use_locking, use_nesterov.
OpBuilder& AddAdamInputs(OpBuilder& b, Input var, Input m, Input v, const AdamInputs& in,
                         const ApplyAttrs& attrs);

}  // namespace minitf::ops::internal

#endif  // MINITF_OPS_CC_APPLY_OP_INPUTS_H_
