#include "optimizer/arithmetic_optimizer.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "optimizer/node_rules.h"
#include "platform/status_macros.h"
#include "runtime/node_def_util.h"
#include "runtime/types.h"

namespace minitf {
namespace {

const absl::flat_hash_set<std::string>& SameShapeMeansSameValue() {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "Reshape", "BroadcastTo", "Tile", "Pad", "MirrorPad", "Slice", "Squeeze", "Sum",
      "Mean",    "Prod",        "Max",  "Min", "All",       "Any"};
  return *ops;
}

bool IsIdentityPermutation(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return !perm.empty();
}

// Whether inner then outer leaves every axis where it was.
bool Cancel(const std::vector<int64_t>& inner, const std::vector<int64_t>& outer) {
  if (inner.empty() || inner.size() != outer.size()) return false;
  for (size_t i = 0; i < outer.size(); ++i) {
    const int64_t o = outer[i];
    if (o < 0 || o >= static_cast<int64_t>(inner.size()) || inner[o] != static_cast<int64_t>(i)) {
      return false;
    }
  }
  return true;
}

bool SameKnownShape(const Node& n) {
  const Edge* in = DataInput(n, 0);
  if (in == nullptr || n.num_outputs() != 1) return false;
  const PartialTensorShape& from = in->src()->output_shapes()[in->src_output()];
  const PartialTensorShape& to = n.output_shapes()[0];
  return from.IsFullyDefined() && to.IsFullyDefined() && from == to;
}

// The edge whose value `n` passes on unchanged, or null.
const Edge* PassedOn(const Node& n) {
  const std::string& op = n.type_string();
  if (op == "StopGradient" || op == "PreventGradient" || op == "Snapshot") {
    return DataInput(n, 0);
  }
  if (op == "Cast") {
    return n.input_type(0) == n.output_type(0) ? DataInput(n, 0) : nullptr;
  }
  if (op == "Transpose") {
    const std::vector<int64_t> perm = ConstIntsInput(n, 1);
    if (IsIdentityPermutation(perm)) return DataInput(n, 0);
    const Edge* in = DataInput(n, 0);
    if (in != nullptr && in->src()->type_string() == "Transpose" &&
        Cancel(ConstIntsInput(*in->src(), 1), perm)) {
      return DataInput(*in->src(), 0);
    }
    return nullptr;
  }
  if (SameShapeMeansSameValue().contains(op) && SameKnownShape(n)) return DataInput(n, 0);
  return nullptr;
}

// Replaces `n` by an Identity of the same name reading `value`.
absl::Status ToIdentity(Graph* graph, Node* n, const Edge* value) {
  NodeDef def;
  def.op = "Identity";
  def.attr["T"] = n->output_type(0);
  const OutputRef input{value->src(), value->src_output()};
  return ReplaceNode(graph, n, std::move(def), {input}).status();
}

}  // namespace

bool SimplifyArithmetic(Graph* graph, const std::function<bool(const Node*)>& consider) {
  bool changed = false;
  std::vector<int> ids;
  for (const Node* n : graph->op_nodes()) ids.push_back(n->id());
  for (int id : ids) {
    Node* n = graph->FindNodeId(id);
    if (n == nullptr) continue;  // Removed as unread.
    if (n->type_string() == "Identity" || !MayChange(*n) || (consider && !consider(n))) {
      continue;
    }
    const Edge* value = PassedOn(*n);
    if (value == nullptr || IsRefType(value->src()->output_type(value->src_output()))) continue;
    if (!ToIdentity(graph, n, value).ok()) continue;
    changed = true;
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

}  // namespace minitf
