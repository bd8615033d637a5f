#include "ops/cc/variables.h"

#include "absl/strings/str_cat.h"
#include "ops/cc/array_ops.h"
#include "ops/cc/resource_variable_ops.h"
#include "ops/cc/state_ops.h"

namespace minitf::ops {

namespace {

// Keeps `var` and its initialiser in the graph's collections.
Output Register(const Scope& scope, const Output& var, const Output& init,
                const NewVariableOptions& options) {
  if (!scope.ok()) return Output();
  scope.AddToCollection(kGlobalVariables, var);
  if (options.trainable) scope.AddToCollection(kTrainableVariables, var);
  scope.AddToCollection(kVariableInitializers, init);
  return var;
}

// The scope naming "<name>/Assign" beside the variable `name` (its name's
// last part, in the same sub-scope), without control dependencies.
Scope InitScope(const Scope& scope, const Output& var) {
  const std::string& name = var.node_name();
  const std::string last = name.substr(name.rfind('/') + 1);
  return scope.WithNoControlDependencies().WithOpName(absl::StrCat(last, "/Assign"));
}

}  // namespace

Output NewVariable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                   Input initial_value, const NewVariableOptions& options) {
  Output var = Variable(scope, shape, dtype);
  if (!scope.ok()) return Output();
  return Register(scope, var, Assign(InitScope(scope, var), var, initial_value), options);
}

Output NewResourceVariable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                           Input initial_value, const NewVariableOptions& options) {
  Output handle = VarHandleOp(scope, dtype, shape);
  if (!scope.ok()) return Output();
  return Register(scope, handle, AssignVariableOp(InitScope(scope, handle), handle, initial_value),
                  options);
}

std::vector<Output> GlobalVariables(const Scope& scope) {
  return scope.GetCollection(kGlobalVariables);
}

std::vector<Output> TrainableVariables(const Scope& scope) {
  return scope.GetCollection(kTrainableVariables);
}

Output GlobalVariablesInitializer(const Scope& scope) {
  Scope s = scope.WithNoControlDependencies();
  return NoOp(s.WithControlDependencies(scope.GetCollection(kVariableInitializers)));
}

}  // namespace minitf::ops
