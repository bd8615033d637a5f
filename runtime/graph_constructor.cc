// ConvertGraphDefToGraph: GraphDef -> validated Graph with inferred shapes.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/status_macros.h"
#include "runtime/control_flow.h"
#include "runtime/graph.h"
#include "runtime/node_def_util.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf {

namespace {

absl::Status NodeError(const NodeDef& def, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("Node '", def.name, "' (op '", def.op, "'): ", message));
}

// Connects every input named by node `n`'s NodeDef.
absl::Status AddInputEdges(Graph* g, Node* n) {
  const NodeDef& def = n->def();
  int data_index = 0;
  bool seen_control = false;
  for (const std::string& input : def.input) {
    auto id = ParseTensorName(input);
    if (!id.ok()) return NodeError(def, id.status().message());
    Node* src = g->FindNode(id->node);
    if (src == nullptr || !src->IsOp()) {
      return NodeError(def, absl::StrCat("input '", input, "' refers to unknown node '",
                                         id->node, "'"));
    }
    if (id->IsControl()) {
      seen_control = true;
      g->AddControlEdge(src, n);
      continue;
    }
    if (seen_control) {
      return NodeError(def, absl::StrCat("data input '", input,
                                         "' comes after a control input"));
    }
    if (data_index >= n->num_inputs()) {
      return NodeError(def, absl::StrCat("expected ", n->num_inputs(), " inputs, got ",
                                         NumDataInputs(def)));
    }
    if (id->index >= src->num_outputs()) {
      return NodeError(def, absl::StrCat("input '", input, "' refers to output ", id->index,
                                         " of node '", src->name(), "', which has only ",
                                         src->num_outputs(), " outputs"));
    }
    const DataType have = src->output_type(id->index);
    const DataType want = n->input_type(data_index);
    // A reference output may feed a value input (it is read), not the reverse.
    const bool ok = have == want || (IsRefType(have) && RemoveRefType(have) == want);
    if (!ok) {
      return NodeError(def, absl::StrCat("input ", data_index, " ('", input, "') has type ",
                                         DataTypeString(have), ", expected ",
                                         DataTypeString(want)));
    }
    g->AddEdge(src, id->index, n, data_index);
    ++data_index;
  }
  if (data_index != n->num_inputs()) {
    return NodeError(def, absl::StrCat("expected ", n->num_inputs(), " inputs, got ",
                                       data_index));
  }
  return absl::OkStatus();
}

// Per output, `now` merged with `before`; `before` where they disagree.
std::vector<PartialTensorShape> MergedShapes(const std::vector<PartialTensorShape>& before,
                                             const std::vector<PartialTensorShape>& now) {
  if (before.size() != now.size()) return before;
  std::vector<PartialTensorShape> merged = before;
  for (size_t i = 0; i < now.size(); ++i) {
    absl::StatusOr<PartialTensorShape> m = before[i].MergeWith(now[i]);
    if (m.ok()) merged[i] = *std::move(m);
  }
  return merged;
}

// Runs shape functions in topological order (TensorFlow's ShapeRefiner).
// With `refine`, what a node's outputs already hold is kept where the new
// shape says less, and a shape function's error leaves the node as it was.
absl::Status InferShapes(Graph* g, const std::vector<Node*>& order, bool refine) {
  for (Node* n : order) {
    if (!n->IsOp()) continue;
    std::vector<PartialTensorShape> input_shapes(n->num_inputs());
    std::vector<const Tensor*> input_tensors(n->num_inputs(), nullptr);
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) continue;
      input_shapes[e->dst_input()] = e->src()->output_shapes()[e->src_output()];
      // Constant inputs let shape functions see values (Reshape's shape).
      if (e->src()->type_string() == "Const") {
        auto it = e->src()->def().attr.find("value");
        if (it != e->src()->def().attr.end() && it->second.Holds<Tensor>()) {
          input_tensors[e->dst_input()] = &it->second.tensor();
        }
      }
    }
    const OpDef* op_def = n->op_def();
    if (!op_def->shape_fn) continue;  // Outputs stay unknown.
    InferenceContext ctx(&n->def(), op_def, std::move(input_shapes), std::move(input_tensors),
                         n->num_outputs());
    absl::Status s = op_def->shape_fn(&ctx);
    if (refine) {
      if (s.ok()) g->set_output_shapes(n, MergedShapes(n->output_shapes(), ctx.outputs()));
      continue;
    }
    if (!s.ok()) {
      if (absl::StrContains(s.message(), "Node '")) return s;
      return NodeError(n->def(), s.message());
    }
    g->set_output_shapes(n, ctx.outputs());
  }
  return absl::OkStatus();
}

// One error for every op type of `def` that is not registered, naming the
// nodes that use it, so a graph from elsewhere (TensorFlow) shows everything
// it lacks at once, not one op per attempt.
absl::Status CheckOpsRegistered(const GraphDef& def) {
  constexpr size_t kNodesNamed = 5;
  std::map<std::string, std::vector<std::string>> missing;
  for (const NodeDef& nd : def.node) {
    if (OpRegistry::Global()->LookUp(nd.op) == nullptr) missing[nd.op].push_back(nd.name);
  }
  if (missing.empty()) return absl::OkStatus();
  std::vector<std::string> parts;
  for (const auto& [op, nodes] : missing) {
    std::vector<std::string> named(nodes.begin(),
                                   nodes.begin() + std::min(nodes.size(), kNodesNamed));
    std::string part = absl::StrCat("'", op, "' (", nodes.size() == 1 ? "node " : "nodes ",
                                    absl::StrJoin(named, ", "));
    if (nodes.size() > kNodesNamed) {
      absl::StrAppend(&part, " and ", nodes.size() - kNodesNamed, " more");
    }
    parts.push_back(part + ")");
  }
  return absl::NotFoundError(
      absl::StrCat("Op type not registered: the graph uses ", missing.size(),
                   missing.size() == 1 ? " op type" : " op types",
                   " minitf does not have: ", absl::StrJoin(parts, ", ")));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Graph>> ConvertGraphDefToGraph(const GraphDef& def) {
  MINITF_RETURN_IF_ERROR(CheckOpsRegistered(def));
  auto g = std::make_unique<Graph>();
  std::vector<Node*> nodes;
  nodes.reserve(def.node.size());
  for (const NodeDef& nd : def.node) {
    MINITF_ASSIGN_OR_RETURN(Node * n, g->AddNode(nd));
    nodes.push_back(n);
  }
  for (Node* n : nodes) MINITF_RETURN_IF_ERROR(AddInputEdges(g.get(), n));
  MINITF_ASSIGN_OR_RETURN(std::vector<Node*> order, g->TopologicalOrder());
  MINITF_RETURN_IF_ERROR(InferShapes(g.get(), order, /*refine=*/false));
  if (HasLoopOps(*g)) {
    // A node fed from two frames is reported here, not when a step runs.
    std::vector<ControlFlowInfo> info;
    MINITF_RETURN_IF_ERROR(BuildControlFlowInfo(*g, &info));
  }
  g->FixupSourceAndSinkEdges();
  return g;
}

absl::Status RefineShapes(Graph* graph) {
  MINITF_ASSIGN_OR_RETURN(std::vector<Node*> order, graph->TopologicalOrder());
  return InferShapes(graph, order, /*refine=*/true);
}

absl::StatusOr<std::unique_ptr<Graph>> CopyGraph(const Graph& graph) {
  return ConvertGraphDefToGraph(graph.ToGraphDef());
}

}  // namespace minitf
