// Variables with their initialisers, kept in the graph's collections as
// TensorFlow 1.x's tf.Variable keeps them, and the op that runs them all.
//
//   auto w = ops::NewVariable(root.WithOpName("w"), {784, 10}, DT_FLOAT,
//                             ops::RandomStandardNormal(root, {784, 10}, DT_FLOAT));
//   auto b = ops::NewVariable(root.WithOpName("b"), {10}, DT_FLOAT, ops::Fill(root, {10}, 0.0f));
//   ...build the model and its optimizer (optimizers.h), which adds its own slots...
//   auto init = ops::GlobalVariablesInitializer(root);   // after every variable
//   session->Run({}, {}, {init.node_name()}, nullptr);
#ifndef MINITF_OPS_CC_VARIABLES_H_
#define MINITF_OPS_CC_VARIABLES_H_

#include <vector>

#include "ops/cc/scope.h"

namespace minitf::ops {

// The collection keys (TensorFlow's GraphKeys names).
inline constexpr char kGlobalVariables[] = "variables";
inline constexpr char kTrainableVariables[] = "trainable_variables";
inline constexpr char kVariableInitializers[] = "initializers";

struct NewVariableOptions {
  // Whether optimizers train it when given no variable list.
  bool trainable = true;
};

// A ref Variable of `shape` and `dtype` named by `scope`, and the Assign
// ("<name>/Assign") that sets it to `initial_value` (which must have that
// shape). Returns the variable's reference.
Output NewVariable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                   Input initial_value, const NewVariableOptions& options = {});

// The same as a resource variable: a VarHandleOp named by `scope` and the
// AssignVariableOp ("<name>/Assign") that initialises it. Returns the handle.
Output NewResourceVariable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                           Input initial_value, const NewVariableOptions& options = {});

// The variables NewVariable made so far in `scope`'s graph; the trainable ones.
std::vector<Output> GlobalVariables(const Scope& scope);
std::vector<Output> TrainableVariables(const Scope& scope);

// A NoOp that runs the initialiser of every variable NewVariable made so far
// (build it after the optimizer, whose slots are variables too).
Output GlobalVariablesInitializer(const Scope& scope);

}  // namespace minitf::ops

#endif  // MINITF_OPS_CC_VARIABLES_H_
