#include "optimizer/node_rules.h"

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/types.h"

namespace minitf {
namespace {

bool HasRefType(const DataTypeVector& types) {
  return std::any_of(types.begin(), types.end(), [](DataType t) { return IsRefType(t); });
}

}  // namespace

bool IsFeedFetchOrTransfer(const Node& n) {
  const std::string& op = n.type_string();
  return op == "_Arg" || op == "_Retval" || op == "_Send" || op == "_Recv" ||
         op == "_HostSend" || op == "_HostRecv" || op == "Placeholder";
}

bool HasRefInputOrOutput(const Node& n) {
  return HasRefType(n.input_types()) || HasRefType(n.output_types());
}

const Edge* DataInput(const Node& n, int i) {
  absl::StatusOr<const Edge*> e = n.input_edge(i);
  return e.ok() ? *e : nullptr;
}

bool MayChange(const Node& n) {
  return n.IsOp() && n.op_def() != nullptr && !n.op_def()->is_stateful && !n.IsControlFlow() &&
         !IsFeedFetchOrTransfer(n) && !HasRefInputOrOutput(n);
}

void RemoveIfUnread(Graph* graph, Node* n) {
  if (!MayChange(*n)) return;
  for (const Edge* e : n->out_edges()) {
    if (!e->dst()->IsSink()) return;
  }
  std::vector<Node*> inputs;
  for (const Edge* e : n->in_edges()) {
    if (e->src()->IsOp()) inputs.push_back(e->src());
  }
  graph->RemoveNode(n);
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  for (Node* input : inputs) RemoveIfUnread(graph, input);
}

}  // namespace minitf
