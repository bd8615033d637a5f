#include "runtime/graph.h"

#include <algorithm>
#include <deque>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/logging.h"
#include "runtime/node_def_util.h"
#include "runtime/op_registry.h"

namespace minitf {

absl::StatusOr<const Edge*> Node::input_edge(int i) const {
  for (const Edge* e : in_edges_) {
    if (e->dst_input() == i) return e;
  }
  return absl::NotFoundError(absl::StrCat("Node '", name(), "': input ", i, " not connected"));
}

Graph::Graph() {
  for (const char* name : {"_SOURCE", "_SINK"}) {
    auto node = std::make_unique<Node>();
    node->id_ = static_cast<int>(nodes_.size());
    node->def_.name = name;
    node->def_.op = "NoOp";
    by_name_[name] = node.get();
    nodes_.push_back(std::move(node));
  }
}

absl::StatusOr<Node*> Graph::AddNode(NodeDef def) {
  if (def.name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a node of op '", def.op, "' has an empty name"));
  }
  if (by_name_.contains(def.name)) {
    return absl::InvalidArgumentError(absl::StrCat("Node '", def.name, "' is not unique"));
  }
  const OpDef* op_def = OpRegistry::Global()->LookUp(def.op);
  if (op_def == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("Node '", def.name, "': op type not registered: '", def.op, "'"));
  }
  AddDefaultsToNodeDef(*op_def, &def);
  if (absl::Status s = ValidateNodeDefAttrs(def, *op_def); !s.ok()) return s;
  auto node = std::make_unique<Node>();
  if (absl::Status s = InOutTypesForNode(def, *op_def, &node->input_types_,
                                         &node->output_types_);
      !s.ok()) {
    return AttachNodeName(s, def);
  }
  node->id_ = static_cast<int>(nodes_.size());
  node->op_def_ = op_def;
  node->output_shapes_.assign(node->output_types_.size(), PartialTensorShape());
  node->def_ = std::move(def);
  Node* raw = node.get();
  by_name_[raw->name()] = raw;
  nodes_.push_back(std::move(node));
  ++num_op_nodes_;
  return raw;
}

const Edge* Graph::AddEdge(Node* src, int src_output, Node* dst, int dst_input) {
  auto edge = std::make_unique<Edge>();
  edge->src_ = src;
  edge->dst_ = dst;
  edge->src_output_ = src_output;
  edge->dst_input_ = dst_input;
  edge->id_ = static_cast<int>(edges_.size());
  const Edge* raw = edge.get();
  src->out_edges_.push_back(raw);
  dst->in_edges_.push_back(raw);
  edges_.push_back(std::move(edge));
  return raw;
}

const Edge* Graph::AddControlEdge(Node* src, Node* dst) {
  for (const Edge* e : dst->in_edges_) {
    if (e->IsControlEdge() && e->src() == src) return e;
  }
  return AddEdge(src, kControlSlot, dst, kControlSlot);
}

void Graph::RemoveEdge(const Edge* edge) {
  auto erase = [edge](std::vector<const Edge*>& v) {
    v.erase(std::remove(v.begin(), v.end(), edge), v.end());
  };
  erase(edge->src()->out_edges_);
  erase(edge->dst()->in_edges_);
  edges_[edge->id()].reset();
}

void Graph::RemoveNode(Node* node) {
  MINITF_CHECK(node->IsOp());
  while (!node->in_edges_.empty()) RemoveEdge(node->in_edges_.back());
  while (!node->out_edges_.empty()) RemoveEdge(node->out_edges_.back());
  by_name_.erase(node->name());
  --num_op_nodes_;
  nodes_[node->id()].reset();
}

Node* Graph::FindNode(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<Node*> Graph::op_nodes() const {
  std::vector<Node*> out;
  for (const auto& n : nodes_) {
    if (n != nullptr && n->IsOp()) out.push_back(n.get());
  }
  return out;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  for (const auto& n : nodes_) {
    if (n != nullptr) out.push_back(n.get());
  }
  return out;
}

void Graph::FixupSourceAndSinkEdges() {
  for (Node* n : op_nodes()) {
    if (n->in_edges_.empty()) AddControlEdge(source_node(), n);
    if (n->out_edges_.empty()) AddControlEdge(n, sink_node());
  }
}

GraphDef Graph::ToGraphDef() const {
  GraphDef def;
  for (Node* n : op_nodes()) {
    NodeDef nd = n->def();
    nd.input.clear();
    std::vector<const Edge*> data(n->num_inputs(), nullptr);
    std::vector<std::string> control;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) {
        if (e->src()->IsOp()) control.push_back(absl::StrCat("^", e->src()->name()));
      } else {
        data[e->dst_input()] = e;
      }
    }
    for (const Edge* e : data) {
      if (e == nullptr) continue;
      nd.input.push_back(e->src_output() == 0
                             ? e->src()->name()
                             : absl::StrCat(e->src()->name(), ":", e->src_output()));
    }
    std::sort(control.begin(), control.end());
    for (std::string& c : control) nd.input.push_back(std::move(c));
    def.node.push_back(std::move(nd));
  }
  return def;
}

absl::StatusOr<std::vector<Node*>> Graph::TopologicalOrder() const {
  std::vector<int> pending(nodes_.size(), 0);
  std::deque<Node*> ready;
  // A loop's back edge (NextIteration -> Merge) is the one cycle a graph
  // may have; the order leaves it out.
  for (Node* n : nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (!e->src()->IsNextIteration()) ++pending[n->id()];
    }
    if (pending[n->id()] == 0) ready.push_back(n);
  }
  std::vector<Node*> order;
  while (!ready.empty()) {
    Node* n = ready.front();
    ready.pop_front();
    order.push_back(n);
    if (n->IsNextIteration()) continue;
    for (const Edge* e : n->out_edges()) {
      if (--pending[e->dst()->id()] == 0) ready.push_back(e->dst());
    }
  }
  if (order.size() == nodes().size()) return order;
  // Every node left with pending inputs lies on a cycle or behind one. Walk
  // back through pending predecessors until a node repeats: that is a cycle.
  Node* start = nullptr;
  for (Node* n : nodes()) {
    if (pending[n->id()] > 0) {
      start = n;
      break;
    }
  }
  std::vector<Node*> path;
  absl::flat_hash_map<Node*, size_t> position;
  Node* cur = start;
  while (!position.contains(cur)) {
    position[cur] = path.size();
    path.push_back(cur);
    for (const Edge* e : cur->in_edges()) {
      if (pending[e->src()->id()] > 0 && !e->src()->IsNextIteration()) {
        cur = e->src();
        break;
      }
    }
  }
  // path[position[cur]..] walks the cycle backwards; print it forwards.
  std::vector<std::string> cycle;
  for (size_t i = path.size(); i > position[cur]; --i) cycle.push_back(path[i - 1]->name());
  cycle.push_back(cycle.front());
  return absl::InvalidArgumentError(
      absl::StrCat("Graph contains a cycle: ", absl::StrJoin(cycle, " -> ")));
}

}  // namespace minitf
