#include "ops/cc/optimizers.h"

#include "absl/strings/str_cat.h"
#include "ops/cc/array_ops.h"
#include "ops/cc/gradients.h"
#include "ops/cc/math_ops.h"
#include "ops/cc/resource_variable_ops.h"
#include "ops/cc/state_ops.h"
#include "ops/cc/variables.h"
#include "runtime/node_def_util.h"

namespace minitf::ops {
namespace {

bool IsResource(const Output& var) { return var.type() == DT_RESOURCE; }

// The element type and the (fully defined) shape of a variable, from its node.
absl::Status VariableTypeAndShape(const Scope& scope, const Output& var, DataType* dtype,
                                  TensorShape* shape) {
  const NodeDef* def = scope.FindNode(var.node_name());
  if (def == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", var.name(), "' names no node of the scope's graph"));
  }
  if (IsResource(var)) {
    if (absl::Status s = GetNodeAttr(*def, "dtype", dtype); !s.ok()) return s;
  } else {
    *dtype = RemoveRefType(var.type());
  }
  PartialTensorShape partial;
  if (absl::Status s = GetNodeAttr(*def, "shape", &partial); !s.ok()) return s;
  if (!partial.IsFullyDefined() || partial.num_elements() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "variable '", var.node_name(), "' has shape ", partial.DebugString(),
        "; an optimizer's slots need a fully defined one"));
  }
  *shape = partial.AsTensorShape();
  return absl::OkStatus();
}

}  // namespace

absl::Status Optimizer::ComputeGradients(const Scope& scope, const Output& loss,
                                         const std::vector<Output>& vars,
                                         std::vector<GradAndVar>* grads_and_vars) const {
  const std::vector<Output> targets = vars.empty() ? TrainableVariables(scope) : vars;
  if (targets.empty()) {
    absl::Status s = absl::InvalidArgumentError(
        absl::StrCat(name(), ": no variables to optimize (none given, none trainable)"));
    scope.UpdateStatus(s);
    return s;
  }
  std::vector<Output> grads;
  if (absl::Status s = AddSymbolicGradients(scope, {loss}, targets, &grads); !s.ok()) return s;
  grads_and_vars->clear();
  for (size_t i = 0; i < targets.size(); ++i) {
    if (!grads[i].valid()) {
      absl::Status s = absl::InvalidArgumentError(absl::StrCat(
          name(), ": the loss '", loss.name(), "' does not depend on variable '",
          targets[i].node_name(), "' (no gradient)"));
      scope.UpdateStatus(s);
      return s;
    }
    grads_and_vars->emplace_back(grads[i], targets[i]);
  }
  return absl::OkStatus();
}

absl::Status Optimizer::ApplyGradients(const Scope& scope,
                                       const std::vector<GradAndVar>& grads_and_vars,
                                       Output* train_op) {
  if (!scope.ok()) return scope.status();
  std::string opt_name;
  const Scope opt = scope.NewUniqueSubScope(name(), &opt_name);
  Prepare(opt);
  std::vector<Output> grads;
  for (const auto& [grad, var] : grads_and_vars) grads.push_back(grad);
  // Every update waits for every gradient.
  const Scope gated = opt.WithControlDependencies(grads);
  std::vector<Output> updates;
  for (const auto& [grad, var] : grads_and_vars) {
    const Scope update = gated.NewSubScope(absl::StrCat("update_", var.node_name()));
    updates.push_back(ApplyDense(update, scope, var, grad));
  }
  std::vector<Output> done = Finish(opt, updates);
  *train_op = NoOp(opt.WithOpName("apply").WithControlDependencies(done));
  return scope.status();
}

absl::Status Optimizer::Minimize(const Scope& scope, const Output& loss,
                                 const std::vector<Output>& vars, Output* train_op) {
  std::vector<GradAndVar> grads_and_vars;
  if (absl::Status s = ComputeGradients(scope, loss, vars, &grads_and_vars); !s.ok()) return s;
  return ApplyGradients(scope, grads_and_vars, train_op);
}

Output Optimizer::ZerosSlot(const Scope& scope, const Output& var, const std::string& slot) {
  DataType dtype = DT_INVALID;
  TensorShape shape;
  if (absl::Status s = VariableTypeAndShape(scope, var, &dtype, &shape); !s.ok()) {
    scope.UpdateStatus(s);
    return Output();
  }
  // "<var>/<slot>", outside the update's control dependencies.
  const Scope s = scope.WithNoControlDependencies().NewSubScope(var.node_name()).WithOpName(slot);
  Tensor zeros(dtype, shape);
  MINITF_SWITCH_ALL_TYPES(dtype, T, , { zeros.flat<T>().setZero(); });
  const NewVariableOptions options{.trainable = false};
  return IsResource(var) ? NewResourceVariable(s, shape, dtype, zeros, options)
                         : NewVariable(s, shape, dtype, zeros, options);
}

Output GradientDescentOptimizer::ApplyDense(const Scope& scope, const Scope& /*slots*/,
                                            const Output& var, const Output& grad) {
  const float lr = options_.learning_rate;
  if (IsResource(var)) {
    return ResourceApplyGradientDescent(scope, var, lr, grad, {.use_locking = options_.use_locking});
  }
  return ApplyGradientDescent(scope, var, lr, grad, {.use_locking = options_.use_locking});
}

Output MomentumOptimizer::ApplyDense(const Scope& scope, const Scope& slots, const Output& var,
                                     const Output& grad) {
  Output accum = ZerosSlot(slots, var, "Momentum");
  const ApplyAttrs attrs{.use_locking = options_.use_locking,
                         .use_nesterov = options_.use_nesterov};
  if (IsResource(var)) {
    return ResourceApplyMomentum(scope, var, accum, options_.learning_rate, grad,
                                 options_.momentum, attrs);
  }
  return ApplyMomentum(scope, var, accum, options_.learning_rate, grad, options_.momentum, attrs);
}

void AdamOptimizer::Prepare(const Scope& scope) {
  const NewVariableOptions options{.trainable = false};
  beta1_power_ = NewVariable(scope.WithOpName("beta1_power"), TensorShape({}), DT_FLOAT,
                             options_.beta1, options);
  beta2_power_ = NewVariable(scope.WithOpName("beta2_power"), TensorShape({}), DT_FLOAT,
                             options_.beta2, options);
}

Output AdamOptimizer::ApplyDense(const Scope& scope, const Scope& slots, const Output& var,
                                 const Output& grad) {
  Output m = ZerosSlot(slots, var, "Adam");
  Output v = ZerosSlot(slots, var, "Adam_1");
  const AdamInputs in{.beta1_power = beta1_power_,
                      .beta2_power = beta2_power_,
                      .lr = options_.learning_rate,
                      .beta1 = options_.beta1,
                      .beta2 = options_.beta2,
                      .epsilon = options_.epsilon,
                      .grad = grad};
  const ApplyAttrs attrs{.use_locking = options_.use_locking};
  return IsResource(var) ? ResourceApplyAdam(scope, var, m, v, in, attrs)
                         : ApplyAdam(scope, var, m, v, in, attrs);
}

// After every update: beta1_power *= beta1, beta2_power *= beta2.
std::vector<Output> AdamOptimizer::Finish(const Scope& scope, const std::vector<Output>& updates) {
  const Scope after = scope.WithNoControlDependencies().WithControlDependencies(updates);
  return {Assign(after.WithOpName("update_beta1_power"), beta1_power_,
                 Mul(after, beta1_power_, options_.beta1)),
          Assign(after.WithOpName("update_beta2_power"), beta2_power_,
                 Mul(after, beta2_power_, options_.beta2))};
}

}  // namespace minitf::ops
