// Graph-builder functions for the ref-variable state ops: Variable,
// VariableV2, Assign, AssignAdd, AssignSub, ScatterAdd, and the optimizer updates
// ApplyGradientDescent, ApplyMomentum and ApplyAdam (resource variables:
// resource_variable_ops.h).
//
//   auto w = ops::Variable(root.WithOpName("w"), {2, 2}, DT_FLOAT);
//   auto init = ops::Assign(root, w, ops::Fill(root, {2, 2}, 0.0f));
//   auto step = ops::ApplyGradientDescent(root, w, 0.1f, grad);
//   session->Run({}, {}, {init.node_name()}, &outputs);   // once
//   session->Run({}, {}, {step.node_name()}, &outputs);   // every step
//
// A Variable's output is a reference (type Ref(dtype)); passing it to an op
// that takes a value reads the variable's current value.
#ifndef MINITF_OPS_CC_STATE_OPS_H_
#define MINITF_OPS_CC_STATE_OPS_H_

#include <string>

#include "ops/cc/scope.h"

namespace minitf::ops {

struct VariableAttrs {
  // The ResourceMgr container and name of the value; the node's name when
  // shared_name is empty.
  std::string container;
  std::string shared_name;
};
// A variable of `dtype`, uninitialized until assigned.
Output Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                const VariableAttrs& attrs = {});

// Variable under TensorFlow 1.x's op name (what tf.compat.v1 graphs hold).
Output VariableV2(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                  const VariableAttrs& attrs = {});

struct AssignAttrs {
  // When false, the value may have another shape than the variable.
  bool validate_shape = true;
  bool use_locking = true;
};
// ref = value; returns the reference (usable as a run target).
Output Assign(const Scope& scope, Input ref, Input value, const AssignAttrs& attrs = {});

struct UpdateAttrs {
  // Hold the variable's mutex for the whole update.
  bool use_locking = false;
};
// ref += value; returns the reference.
Output AssignAdd(const Scope& scope, Input ref, Input value, const UpdateAttrs& attrs = {});
// ref -= value; returns the reference.
Output AssignSub(const Scope& scope, Input ref, Input value, const UpdateAttrs& attrs = {});
// ref[indices[i], ...] += updates[i, ...]; returns the reference.
Output ScatterAdd(const Scope& scope, Input ref, Input indices, Input updates,
                  const UpdateAttrs& attrs = {});
// var -= alpha * delta; returns the reference.
Output ApplyGradientDescent(const Scope& scope, Input var, Input alpha, Input delta,
                            const UpdateAttrs& attrs = {});

struct ApplyAttrs {
  bool use_locking = false;
  bool use_nesterov = false;
};
// accum = accum * momentum + grad; var -= lr * accum (Nesterov: see
// ops/defs/training_ops.cc); returns the reference to var.
Output ApplyMomentum(const Scope& scope, Input var, Input accum, Input lr, Input grad,
                     Input momentum, const ApplyAttrs& attrs = {});

// Adam's inputs after the three variables, in TensorFlow's order.
struct AdamInputs {
  Input beta1_power;
  Input beta2_power;
  Input lr;
  Input beta1;
  Input beta2;
  Input epsilon;
  Input grad;
};
// Adam's update of var, m and v; returns the reference to var.
Output ApplyAdam(const Scope& scope, Input var, Input m, Input v, const AdamInputs& in,
                 const ApplyAttrs& attrs = {});

}  // namespace minitf::ops

#endif  // MINITF_OPS_CC_STATE_OPS_H_
