// The gradients of v1 cond (Switch and Merge), as TensorFlow's
// control_flow_grad.py computes them outside while loops: Merge routes its
// gradient back to the branch that was taken (a Switch on the cond's
// predicate), and Switch merges the gradients of its two branches (only the
// taken one is alive). The loop ops get an error: the gradients of while
// loops are not implemented.
#include <deque>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ops/cc/control_flow_ops.h"
#include "ops/gradients/grad_helpers.h"

namespace minitf {
namespace {

using Grads = std::vector<Output>;

// The branch `tensor` (a Merge input) lies in: the Switch output it depends
// on, 0 (false) or 1 (true), and that Switch's predicate. Walks back over
// data and control inputs (a branch's constants hang on its pivot by a
// control edge) to the nearest Switch.
absl::Status FindBranch(const Scope& scope, const Operation& merge, const Output& tensor,
                        int* branch, Output* pred) {
  auto unsupported = [&](const std::string& why) {
    return absl::UnimplementedError(
        absl::StrCat("the gradient of Merge '", merge.name(), "': ", why));
  };
  auto found = [&](const NodeDef& sw, int index) {
    absl::StatusOr<TensorId> pred_id = ParseTensorName(sw.input[1]);
    if (!pred_id.ok()) return pred_id.status();
    const NodeDef* pred_def = scope.FindNode(pred_id->node);
    if (pred_def != nullptr && pred_def->op == "LoopCond") {
      return unsupported("it belongs to a while loop; the gradients of loops are not supported");
    }
    *branch = index;
    *pred = Output(pred_id->node, pred_id->index, DT_BOOL);
    return absl::OkStatus();
  };
  const NodeDef* start = scope.FindNode(tensor.node_name());
  if (start != nullptr && start->op == "Switch") return found(*start, tensor.index());
  std::deque<std::string> queue = {tensor.node_name()};
  absl::flat_hash_set<std::string> seen;
  while (!queue.empty()) {
    const std::string name = queue.front();
    queue.pop_front();
    if (!seen.insert(name).second) continue;
    const NodeDef* def = scope.FindNode(name);
    if (def == nullptr) continue;
    if (def->op == "Merge") {
      return unsupported(absl::StrCat("a branch holds another cond or loop ('", name,
                                      "'); nested control flow is not supported"));
    }
    for (const std::string& input : def->input) {
      absl::StatusOr<TensorId> id = ParseTensorName(input);
      if (!id.ok()) return id.status();
      const NodeDef* src = scope.FindNode(id->node);
      if (src == nullptr) continue;
      if (src->op == "Switch") {
        if (!id->IsControl()) return found(*src, id->index);
        continue;
      }
      queue.push_back(id->node);
    }
  }
  return unsupported(absl::StrCat("input '", tensor.name(), "' depends on no Switch"));
}

// Merge(inputs): input i gets g on the branch it came from.
absl::Status MergeGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  Output pred;
  std::vector<int> branches;
  for (int i = 0; i < op.num_inputs(); ++i) {
    int branch = 0;
    Output p;
    if (absl::Status st = FindBranch(s, op, op.input(i), &branch, &p); !st.ok()) return st;
    if (pred.valid() && p.name() != pred.name()) {
      return absl::UnimplementedError(absl::StrCat("the gradient of Merge '", op.name(),
                                                   "': its inputs come from different conds"));
    }
    pred = p;
    branches.push_back(branch);
  }
  ops::SwitchOutputs routed = ops::Switch(s, g[0], pred);
  for (int branch : branches) out->push_back(branch == 1 ? routed.output_true : routed.output_false);
  return s.status();
}
REGISTER_GRADIENT_OP("Merge", MergeGrad);

// Switch(data, pred): the live branch's gradient (zeros for a branch that
// did not use the data, made on that branch).
absl::Status SwitchGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  for (const std::string& input : op.node_def().input) {
    absl::StatusOr<TensorId> id = ParseTensorName(input);
    const NodeDef* src = id.ok() ? s.FindNode(id->node) : nullptr;
    if (src != nullptr && src->op == "LoopCond") {
      return absl::UnimplementedError(absl::StrCat(
          "Switch '", op.name(), "' belongs to a while loop; the gradients of loops are not "
          "supported"));
    }
  }
  *out = {ops::Merge(s, {g[0], g[1]}).output, NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("Switch", SwitchGrad);

absl::Status LoopGrad(const Scope&, const Operation& op, const Grads&, Grads*) {
  return absl::UnimplementedError(absl::StrCat("'", op.name(), "' (", op.type(),
                                               ") belongs to a while loop; the gradients of "
                                               "loops are not supported"));
}
REGISTER_GRADIENT_OP("Enter", LoopGrad);
REGISTER_GRADIENT_OP("Exit", LoopGrad);
REGISTER_GRADIENT_OP("NextIteration", LoopGrad);
REGISTER_GRADIENT_OP("LoopCond", LoopGrad);

}  // namespace
}  // namespace minitf
