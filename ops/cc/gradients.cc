#include "ops/cc/gradients.h"

#include <deque>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ops/cc/array_ops.h"
#include "ops/cc/grad_op_registry.h"
#include "ops/cc/math_ops.h"

namespace minitf {
namespace {

// Whether a tensor of type `t` carries a gradient: floating point values,
// and resource handles (a variable's gradient reaches its handle through
// ReadVariableOp).
bool CarriesGradient(DataType t) {
  t = RemoveRefType(t);
  return DataTypeIsFloating(t) || t == DT_RESOURCE;
}

std::string Key(const Output& o) { return absl::StrCat(o.node_name(), ":", o.index()); }

// One AddSymbolicGradients call: the ops between the inputs and the outputs,
// visited from the outputs back, each once every consumer has passed its
// gradients back.
class GradientBuilder {
 public:
  GradientBuilder(const Scope& scope, const Scope& grad_scope, const std::vector<Output>& outputs,
                  const std::vector<Output>& inputs)
      : scope_(scope), grad_scope_(grad_scope), outputs_(outputs), inputs_(inputs) {}

  absl::Status Run(const std::vector<Output>& grad_inputs, std::vector<Output>* grad_outputs);

 private:
  absl::Status CheckTensor(const char* what, size_t i, const Output& t) const;
  absl::Status Initialize();
  Output SumGradients(const Output& tensor);
  absl::Status ProcessNode(const std::string& name, std::deque<std::string>* ready);

  const Scope scope_;
  const Scope grad_scope_;
  const std::vector<Output>& outputs_;
  const std::vector<Output>& inputs_;
  // Node -> the node producing each of its data inputs, and the reverse.
  absl::flat_hash_map<std::string, std::vector<std::string>> producers_;
  absl::flat_hash_map<std::string, std::vector<std::string>> consumers_;
  // The nodes on a path from an input to an output.
  absl::flat_hash_set<std::string> between_;
  // Per node of between_, the edges to consumers in between_ not yet visited.
  absl::flat_hash_map<std::string, int> pending_;
  // "node:index" -> the gradients passed back to that tensor, then their sum.
  absl::flat_hash_map<std::string, std::vector<Output>> backprops_;
  absl::flat_hash_map<std::string, Output> summed_;
};

absl::Status GradientBuilder::CheckTensor(const char* what, size_t i, const Output& t) const {
  if (!t.valid()) {
    return absl::InvalidArgumentError(
        absl::StrCat("AddSymbolicGradients: ", what, "[", i, "] is not a tensor"));
  }
  const NodeDef* def = scope_.FindNode(t.node_name());
  if (def == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("AddSymbolicGradients: ", what, "[", i,
                                                   "] '", t.name(),
                                                   "' names no node of the scope's graph"));
  }
  if (!CarriesGradient(t.type())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "AddSymbolicGradients: ", what, "[", i, "] '", t.name(), "' has type ",
        DataTypeString(t.type()), "; only floating-point tensors have gradients"));
  }
  return absl::OkStatus();
}

absl::Status GradientBuilder::Initialize() {
  for (const NodeDef& def : scope_.graph_def().node) {
    std::vector<std::string>& producers = producers_[def.name];
    for (const std::string& input : def.input) {
      absl::StatusOr<TensorId> id = ParseTensorName(input);
      if (!id.ok()) return AttachNodeName(id.status(), def);
      if (id->IsControl()) continue;
      producers.push_back(id->node);
      consumers_[id->node].push_back(def.name);
    }
  }
  // Backwards from the outputs, then forwards from the inputs.
  absl::flat_hash_set<std::string> reaches_output;
  std::vector<std::string> stack;
  for (const Output& o : outputs_) stack.push_back(o.node_name());
  while (!stack.empty()) {
    std::string n = std::move(stack.back());
    stack.pop_back();
    if (!reaches_output.insert(n).second) continue;
    for (const std::string& p : producers_[n]) stack.push_back(p);
  }
  for (const Output& i : inputs_) stack.push_back(i.node_name());
  while (!stack.empty()) {
    std::string n = std::move(stack.back());
    stack.pop_back();
    if (!reaches_output.contains(n) || !between_.insert(n).second) continue;
    for (const std::string& c : consumers_[n]) stack.push_back(c);
  }
  for (const std::string& n : between_) {
    int count = 0;
    for (const std::string& c : consumers_[n]) count += between_.contains(c);
    pending_[n] = count;
  }
  return absl::OkStatus();
}

Output GradientBuilder::SumGradients(const Output& tensor) {
  auto it = backprops_.find(Key(tensor));
  if (it == backprops_.end() || it->second.empty()) return NoGradient();
  if (it->second.size() == 1) return it->second[0];
  return ops::AddN(grad_scope_, it->second);
}

absl::Status GradientBuilder::ProcessNode(const std::string& name,
                                          std::deque<std::string>* ready) {
  absl::StatusOr<Operation> op = Operation::Create(scope_, name);
  if (!op.ok()) return op.status();
  std::vector<Output> grads(op->num_outputs());
  bool any_gradient = false;
  for (int i = 0; i < op->num_outputs(); ++i) {
    grads[i] = SumGradients(op->output(i));
    if (grads[i].valid()) {
      summed_[Key(op->output(i))] = grads[i];
      any_gradient = true;
    }
  }
  bool feeds_between = false;
  for (int j = 0; j < op->num_inputs(); ++j) {
    feeds_between |= between_.contains(op->input(j).node_name());
  }
  std::vector<Output> input_grads;
  if (any_gradient && feeds_between) {
    GradFunc fn = nullptr;
    if (absl::Status s = GradOpRegistry::Global()->Lookup(op->type(), &fn); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(s.message(), " (node '", name, "')"));
    }
    if (fn != nullptr) {
      const Scope node_scope = grad_scope_.NewSubScope(absl::StrCat(name, "_grad"));
      for (int i = 0; i < op->num_outputs(); ++i) {
        if (!grads[i].valid() && CarriesGradient(op->output(i).type())) {
          grads[i] = ops::ZerosLike(node_scope, op->output(i));
        }
      }
      absl::Status s = fn(node_scope, *op, grads, &input_grads);
      if (s.ok()) s = node_scope.status();
      if (!s.ok()) {
        return absl::Status(s.code(), absl::StrCat("the gradient of node '", name, "' (op '",
                                                   op->type(), "'): ", s.message()));
      }
      if (input_grads.size() != static_cast<size_t>(op->num_inputs())) {
        return absl::InternalError(absl::StrCat(
            "the gradient function of op '", op->type(), "' returned ", input_grads.size(),
            " gradients for node '", name, "', which has ", op->num_inputs(), " inputs"));
      }
    }
  }
  for (int j = 0; j < op->num_inputs(); ++j) {
    const Output& in = op->input(j);
    if (!between_.contains(in.node_name())) continue;
    if (j < static_cast<int>(input_grads.size()) && input_grads[j].valid() &&
        CarriesGradient(in.type())) {
      backprops_[Key(in)].push_back(input_grads[j]);
    }
    if (--pending_[in.node_name()] == 0) ready->push_back(in.node_name());
  }
  return absl::OkStatus();
}

absl::Status GradientBuilder::Run(const std::vector<Output>& grad_inputs,
                                  std::vector<Output>* grad_outputs) {
  if (grad_inputs.size() != outputs_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("AddSymbolicGradients: ", outputs_.size(), " outputs but ",
                     grad_inputs.size(), " grad_inputs; there must be one per output"));
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (absl::Status s = CheckTensor("outputs", i, outputs_[i]); !s.ok()) return s;
    if (absl::Status s = CheckTensor("grad_inputs", i, grad_inputs[i]); !s.ok()) return s;
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (absl::Status s = CheckTensor("inputs", i, inputs_[i]); !s.ok()) return s;
  }
  if (absl::Status s = Initialize(); !s.ok()) return s;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    backprops_[Key(outputs_[i])].push_back(grad_inputs[i]);
  }
  std::deque<std::string> ready;
  for (const std::string& n : between_) {
    if (pending_[n] == 0) ready.push_back(n);
  }
  size_t visited = 0;
  while (!ready.empty()) {
    std::string n = std::move(ready.front());
    ready.pop_front();
    ++visited;
    if (absl::Status s = ProcessNode(n, &ready); !s.ok()) return s;
  }
  if (visited != between_.size()) {
    for (const std::string& n : between_) {
      if (pending_[n] == 0) continue;
      const NodeDef* def = scope_.FindNode(n);
      return absl::UnimplementedError(absl::StrCat(
          "AddSymbolicGradients: node '", n, "' (op '", def->op,
          "') is on a cycle between the inputs and the outputs; the gradients of while "
          "loops are not supported"));
    }
  }
  grad_outputs->clear();
  for (const Output& in : inputs_) {
    auto it = summed_.find(Key(in));
    grad_outputs->push_back(it == summed_.end() ? NoGradient() : it->second);
  }
  return absl::OkStatus();
}

absl::Status Build(const Scope& scope, const std::vector<Output>& outputs,
                   const std::vector<Output>* grad_inputs, const std::vector<Output>& inputs,
                   std::vector<Output>* grad_outputs) {
  if (!scope.ok()) return scope.status();
  std::string name;
  const Scope grad_scope = scope.NewUniqueSubScope("gradients", &name);
  std::vector<Output> seeds;
  if (grad_inputs == nullptr) {
    for (const Output& o : outputs) {
      seeds.push_back(o.valid() ? ops::OnesLike(grad_scope, o) : Output());
    }
    if (!scope.ok()) return scope.status();
    grad_inputs = &seeds;
  }
  GradientBuilder builder(scope, grad_scope, outputs, inputs);
  absl::Status s = builder.Run(*grad_inputs, grad_outputs);
  if (s.ok()) s = scope.status();
  scope.UpdateStatus(s);
  return s;
}

}  // namespace

absl::Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                                  const std::vector<Output>& inputs,
                                  const std::vector<Output>& grad_inputs,
                                  std::vector<Output>* grad_outputs) {
  return Build(scope, outputs, &grad_inputs, inputs, grad_outputs);
}

absl::Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                                  const std::vector<Output>& inputs,
                                  std::vector<Output>* grad_outputs) {
  return Build(scope, outputs, nullptr, inputs, grad_outputs);
}

}  // namespace minitf
