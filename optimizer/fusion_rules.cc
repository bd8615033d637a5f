#include "optimizer/fusion_rules.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "runtime/node_def_util.h"

namespace minitf {

Node* OnlyConsumer(const Node& n) {
  Node* consumer = nullptr;
  for (const Edge* e : n.out_edges()) {
    if (e->dst()->IsSink()) continue;
    if (e->IsControlEdge() || (consumer != nullptr && consumer != e->dst())) return nullptr;
    consumer = e->dst();
  }
  return consumer;
}

bool SameDevice(const Node& a, const Node& b) {
  return a.assigned_device_name() == b.assigned_device_name() &&
         a.requested_device() == b.requested_device();
}

bool FullyDefinedAndEqual(const Node& a, int a_output, const Node& b, int b_output) {
  if (a_output >= static_cast<int>(a.output_shapes().size()) ||
      b_output >= static_cast<int>(b.output_shapes().size())) {
    return false;
  }
  const PartialTensorShape& sa = a.output_shapes()[a_output];
  const PartialTensorShape& sb = b.output_shapes()[b_output];
  return sa.IsFullyDefined() && sa == sb;
}

bool NoControlEdges(const Node& n) {
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge() && !e->src()->IsSource()) return false;
  }
  for (const Edge* e : n.out_edges()) {
    if (e->IsControlEdge() && !e->dst()->IsSink()) return false;
  }
  return true;
}

bool TypeIsFloat(const Node& n) {
  DataType type = DT_INVALID;
  return GetNodeAttr(n.def(), "T", &type).ok() && type == DT_FLOAT;
}

bool DependsOn(const Node* n, const Node* target) {
  std::vector<const Node*> stack = {n};
  absl::flat_hash_set<const Node*> seen = {n};
  while (!stack.empty()) {
    const Node* at = stack.back();
    stack.pop_back();
    if (at == target) return true;
    for (const Edge* e : at->in_edges()) {
      if (seen.insert(e->src()).second) stack.push_back(e->src());
    }
  }
  return false;
}

}  // namespace minitf
