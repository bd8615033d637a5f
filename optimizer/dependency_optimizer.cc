#include "optimizer/dependency_optimizer.h"

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"

#include "optimizer/node_rules.h"
#include "platform/status_macros.h"
#include "runtime/types.h"

namespace minitf {
namespace {

bool IsFetchOrMerge(const Node& n) {
  const std::string& op = n.type_string();
  return op == "_Retval" || op == "_Send" || op == "_HostSend" || n.IsMerge();
}

// Grappler's rule: bypassing a node must not add edges.
bool Beneficial(size_t inputs, size_t outputs) { return inputs * outputs <= inputs + outputs; }

// The one data edge into an Identity that may be bypassed, or null.
const Edge* BypassableInput(const Node& n) {
  const Edge* input = nullptr;
  size_t control_inputs = 0;
  for (const Edge* e : n.in_edges()) {
    if (e->src()->IsSource()) continue;
    if (!e->IsControlEdge()) {
      input = e;
    } else if (e->src()->assigned_device_name() != n.assigned_device_name()) {
      return nullptr;
    } else {
      ++control_inputs;
    }
  }
  if (input == nullptr) return nullptr;
  const Node& src = *input->src();
  if (IsRefType(src.output_type(input->src_output()))) return nullptr;
  if (src.IsSwitch() || src.type_string() == "_Recv" || src.type_string() == "_Arg") {
    return nullptr;
  }
  if (src.assigned_device_name() != n.assigned_device_name()) return nullptr;
  if (control_inputs == 0) return input;
  // Its control inputs move to every consumer: worth it for a few, on one
  // device, and never onto a fetch or a Merge.
  size_t consumers = 0;
  for (const Edge* e : n.out_edges()) {
    const Node& dst = *e->dst();
    if (dst.IsSink()) continue;
    if (IsFetchOrMerge(dst) || dst.assigned_device_name() != n.assigned_device_name()) {
      return nullptr;
    }
    ++consumers;
  }
  return Beneficial(control_inputs + 1, consumers) ? input : nullptr;
}

std::vector<Node*> ControlInputs(const Node& n) {
  std::vector<Node*> inputs;
  for (const Edge* e : n.in_edges()) {
    if (!e->src()->IsSource()) inputs.push_back(e->src());
  }
  return inputs;
}

std::vector<Node*> ControlSuccessors(const Node& n) {
  std::vector<Node*> successors;
  for (const Edge* e : n.out_edges()) {
    if (!e->dst()->IsSink()) successors.push_back(e->dst());
  }
  return successors;
}

bool OnDevice(const std::vector<Node*>& nodes, const std::string& device) {
  for (const Node* n : nodes) {
    if (n->assigned_device_name() != device) return false;
  }
  return true;
}

// Whether `n` has control successors and no consumer of its outputs. A
// node reading a branch of a Switch is not one: a control edge from the
// Switch would not carry which branch was taken.
bool OnlyOrders(const Node& n) {
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge() && e->src()->IsSwitch()) return false;
  }
  bool orders = false;
  for (const Edge* e : n.out_edges()) {
    if (e->dst()->IsSink()) continue;
    if (!e->IsControlEdge()) return false;
    orders = true;
  }
  return orders;
}

absl::Status ToNoOp(Graph* graph, Node* n) {
  std::vector<Node*> inputs = ControlInputs(*n);
  std::vector<Node*> successors = ControlSuccessors(*n);
  NodeDef def;
  def.name = n->name();
  def.op = "NoOp";
  def.device = n->requested_device();
  const std::string device = n->assigned_device_name();
  graph->RemoveNode(n);
  MINITF_ASSIGN_OR_RETURN(Node * noop, graph->AddNode(std::move(def)));
  noop->set_assigned_device_name(device);
  for (Node* src : inputs) graph->AddControlEdge(src, noop);
  for (Node* dst : successors) graph->AddControlEdge(noop, dst);
  return absl::OkStatus();
}

// Whether `target` is found behind the inputs of `n` other than `skip`,
// nearest first, looking at no more than kSearchLimit nodes and through no
// control-flow node.
bool WaitsFor(const Node& n, const Edge* skip, const Node* target) {
  std::deque<const Node*> queue;
  absl::flat_hash_set<const Node*> seen;
  auto visit = [&](const Node* m) {
    if (!m->IsOp() || !seen.insert(m).second) return false;
    if (m == target) return true;
    if (!m->IsControlFlow()) queue.push_back(m);
    return false;
  };
  for (const Edge* e : n.in_edges()) {
    if (e != skip && visit(e->src())) return true;
  }
  while (!queue.empty() && static_cast<int>(seen.size()) < kSearchLimit) {
    const Node* m = queue.front();
    queue.pop_front();
    for (const Edge* e : m->in_edges()) {
      if (visit(e->src())) return true;
    }
  }
  return false;
}

}  // namespace

bool RemoveRedundantControlEdges(Graph* graph,
                                 const std::function<bool(const Node*)>& consider) {
  bool changed = false;
  for (Node* n : graph->op_nodes()) {
    if (n->IsControlFlow() || (consider && !consider(n))) continue;
    const std::vector<const Edge*> in(n->in_edges().begin(), n->in_edges().end());
    for (const Edge* e : in) {
      if (!e->IsControlEdge() || !e->src()->IsOp() || e->src()->IsControlFlow()) continue;
      if (!WaitsFor(*n, e, e->src())) continue;
      graph->RemoveEdge(e);
      changed = true;
    }
  }
  return changed;
}

bool ConvertUnusedToNoOps(Graph* graph, const std::function<bool(const Node*)>& consider) {
  absl::StatusOr<std::vector<Node*>> order = graph->TopologicalOrder();
  if (!order.ok()) return false;
  // The last first: a chain nothing reads goes in one walk. Ids, as nodes
  // are replaced on the way.
  std::vector<int> ids;
  for (const Node* n : *order) ids.push_back(n->id());
  bool changed = false;
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    Node* n = graph->FindNodeId(*it);
    if (n == nullptr || n->type_string() == "NoOp" || !MayChange(*n)) continue;
    if ((consider && !consider(n)) || !OnlyOrders(*n)) continue;
    if (!ToNoOp(graph, n).ok()) continue;
    changed = true;
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

bool RemoveIdentityNodes(Graph* graph, const std::function<bool(const Node*)>& consider) {
  bool changed = false;
  for (Node* n : graph->op_nodes()) {
    if (n->type_string() != "Identity" || (consider && !consider(n))) continue;
    const Edge* input = BypassableInput(*n);
    if (input == nullptr) continue;
    Node* src = input->src();
    const int src_output = input->src_output();
    std::vector<Node*> control_inputs = ControlInputs(*n);
    control_inputs.erase(std::remove(control_inputs.begin(), control_inputs.end(), src),
                         control_inputs.end());
    const std::vector<const Edge*> out(n->out_edges().begin(), n->out_edges().end());
    for (const Edge* e : out) {
      if (e->dst()->IsSink()) continue;
      for (Node* c : control_inputs) graph->AddControlEdge(c, e->dst());
      if (e->IsControlEdge()) {
        graph->AddControlEdge(src, e->dst());
      } else {
        graph->AddEdge(src, src_output, e->dst(), e->dst_input());
      }
    }
    graph->RemoveNode(n);
    changed = true;
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

bool RemoveNoOps(Graph* graph, const std::function<bool(const Node*)>& consider) {
  bool changed = false;
  for (Node* n : graph->op_nodes()) {
    if (n->type_string() != "NoOp" || (consider && !consider(n))) continue;
    const std::vector<Node*> inputs = ControlInputs(*n);
    const std::vector<Node*> successors = ControlSuccessors(*n);
    if (successors.empty()) continue;
    const size_t a = inputs.size(), b = successors.size();
    if (!Beneficial(a, b)) continue;
    if (!OnDevice(inputs, n->assigned_device_name()) ||
        !OnDevice(successors, n->assigned_device_name())) {
      continue;
    }
    graph->RemoveNode(n);
    for (Node* src : inputs) {
      for (Node* dst : successors) graph->AddControlEdge(src, dst);
    }
    changed = true;
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

}  // namespace minitf
