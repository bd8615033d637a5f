// The gradient registry: for each op type, the function that adds the ops
// computing the gradients of its inputs from the gradients of its outputs
// (TensorFlow's cc/framework/grad_op_registry.h). AddSymbolicGradients
// (gradients.h) calls them, last op first.
//
//   absl::Status MatMulGrad(const Scope& scope, const Operation& op,
//                           const std::vector<Output>& grad_inputs,
//                           std::vector<Output>* grad_outputs) {
//     // dL/da = dL/dc b^T, dL/db = a^T dL/dc (without transposes).
//     grad_outputs->push_back(ops::MatMul(scope, grad_inputs[0], op.input(1),
//                                         {.transpose_b = true}));
//     grad_outputs->push_back(ops::MatMul(scope, op.input(0), grad_inputs[0],
//                                         {.transpose_a = true}));
//     return scope.status();
//   }
//   REGISTER_GRADIENT_OP("MatMul", MatMulGrad);
//   REGISTER_NO_GRADIENT_OP("Shape");   // an integer result: nothing flows back
//
// The gradient functions live in ops/gradients/.
#ifndef MINITF_OPS_CC_GRAD_OP_REGISTRY_H_
#define MINITF_OPS_CC_GRAD_OP_REGISTRY_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/cc/scope.h"
#include "platform/mutex.h"
#include "runtime/node_def_util.h"

namespace minitf {

// A node of the graph under construction, as a gradient function sees it:
// its attrs and its data inputs and outputs, typed.
class Operation {
 public:
  // The node named `name` of `scope`'s graph; NotFound if there is none.
  static absl::StatusOr<Operation> Create(const Scope& scope, const std::string& name);

  const std::string& name() const { return node_.name; }
  const std::string& type() const { return node_.op; }
  const NodeDef& node_def() const { return node_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // Data input i: the output of another node (a ref type reads a variable).
  const Output& input(int i) const { return inputs_[i]; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  const Output& output(int i) const { return outputs_[i]; }

  // Attr `name`, InvalidArgument naming the node when missing or mistyped.
  template <typename T>
  absl::Status GetAttr(absl::string_view attr, T* value) const {
    return AttachNodeName(GetNodeAttr(node_, attr, value), node_);
  }

 private:
  NodeDef node_;
  std::vector<Output> inputs_;
  std::vector<Output> outputs_;
};

// What a gradient function returns for an input nothing flows back to (an
// integer shape, an index): an invalid Output.
inline Output NoGradient() { return Output(); }

// Adds to `scope` the gradients of op's inputs, one per data input (in
// order), given `grad_inputs`, one per output: the gradient of the loss
// with respect to that output (zeros for an output that does not reach the
// loss, when another does).
using GradFunc = absl::Status (*)(const Scope& scope, const Operation& op,
                                  const std::vector<Output>& grad_inputs,
                                  std::vector<Output>* grad_outputs);

class GradOpRegistry {
 public:
  static GradOpRegistry* Global();

  // Registers `fn` for `op`; null marks the op as not differentiable.
  // Returns true, so that it can initialise a static.
  bool Register(const std::string& op, GradFunc fn);
  // The function for `op` (null for a non-differentiable op); NotFound
  // naming the op when none was registered.
  absl::Status Lookup(const std::string& op, GradFunc* fn) const;
  // The op types with a registration, sorted.
  std::vector<std::string> RegisteredOps() const;

 private:
  mutable Mutex mu_;
  absl::flat_hash_map<std::string, GradFunc> fns_ ABSL_GUARDED_BY(mu_);
};

#define MINITF_GRAD_CONCAT_INNER_(a, b) a##b
#define MINITF_GRAD_CONCAT_(a, b) MINITF_GRAD_CONCAT_INNER_(a, b)
#define REGISTER_GRADIENT_OP(name, fn)                                         \
  [[maybe_unused]] static const bool MINITF_GRAD_CONCAT_(minitf_grad_, __COUNTER__) = \
      ::minitf::GradOpRegistry::Global()->Register(name, fn)
#define REGISTER_NO_GRADIENT_OP(name) REGISTER_GRADIENT_OP(name, nullptr)

}  // namespace minitf

#endif  // MINITF_OPS_CC_GRAD_OP_REGISTRY_H_
