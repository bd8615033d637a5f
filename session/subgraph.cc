#include "session/subgraph.h"

#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "platform/status_macros.h"

namespace minitf::subgraph {

namespace {

// The op node and port that `name` ("x:0") refers to. NotFound naming it
// when no such node is in the graph; InvalidArgument, as in TensorFlow,
// when the node has no such output.
absl::StatusOr<std::pair<Node*, int>> FindTensor(Graph* graph, const std::string& name,
                                                 absl::string_view what) {
  MINITF_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
  Node* n = graph->FindNode(id.node);
  if (n == nullptr || !n->IsOp() || id.IsControl()) {
    return absl::NotFoundError(
        absl::StrCat(what, " '", name, "' refers to a node that is not in the graph"));
  }
  if (id.index >= n->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", name, "' refers to output ",
                                            id.index, " of node '", n->name(),
                                            "', which has ", n->num_outputs(), " outputs"));
  }
  return std::make_pair(n, id.index);
}

NodeDef ArgOrRetvalDef(const std::string& name, const std::string& op, DataType type,
                       int index, const std::string& device) {
  NodeDef def;
  def.name = name;
  def.op = op;
  def.device = device;
  def.attr["T"] = type;
  def.attr["index"] = static_cast<int64_t>(index);
  return def;
}

}  // namespace

absl::Status RewriteGraphForExecution(Graph* graph, const std::vector<std::string>& feeds,
                                      const std::vector<std::string>& fetches,
                                      const std::vector<std::string>& targets,
                                      const std::string& client_device,
                                      RewriteResult* result) {
  // Feeds: (node, port) -> _Arg:0 for every consumer.
  absl::flat_hash_map<std::string, Node*> fed;
  for (size_t i = 0; i < feeds.size(); ++i) {
    MINITF_ASSIGN_OR_RETURN(auto tensor, FindTensor(graph, feeds[i], "Feed"));
    auto [node, port] = tensor;
    const DataType type = node->output_type(port);
    if (IsRefType(type)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Feed '", feeds[i], "' is a reference (a variable) and cannot be fed"));
    }
    MINITF_ASSIGN_OR_RETURN(
        Node * arg, graph->AddNode(ArgOrRetvalDef(absl::StrCat("_arg_", node->name(), "_",
                                                               port, "_", i),
                                                  "_Arg", type, static_cast<int>(i),
                                                  client_device)));
    graph->set_output_shapes(arg, {node->output_shapes()[port]});
    std::vector<const Edge*> consumers;
    for (const Edge* e : node->out_edges()) {
      if (e->src_output() == port) consumers.push_back(e);
    }
    for (const Edge* e : consumers) {
      graph->AddEdge(arg, 0, e->dst(), e->dst_input());
      graph->RemoveEdge(e);
    }
    result->feed_types.push_back(type);
    result->feed_shapes.push_back(node->output_shapes()[port]);
    fed[feeds[i]] = arg;
  }
  std::vector<Node*> keep;
  // Fetches: a _Retval per fetched tensor (a fed one is returned as fed).
  for (size_t i = 0; i < fetches.size(); ++i) {
    Node* src = nullptr;
    int port = 0;
    if (auto it = fed.find(fetches[i]); it != fed.end()) {
      src = it->second;
    } else {
      MINITF_ASSIGN_OR_RETURN(auto tensor, FindTensor(graph, fetches[i], "Fetch"));
      std::tie(src, port) = tensor;
    }
    MINITF_ASSIGN_OR_RETURN(
        Node * retval,
        graph->AddNode(ArgOrRetvalDef(absl::StrCat("_retval_", src->name(), "_", port, "_", i),
                                      "_Retval", RemoveRefType(src->output_type(port)),
                                      static_cast<int>(i), client_device)));
    graph->AddEdge(src, port, retval, 0);
    keep.push_back(retval);
  }
  for (const std::string& target : targets) {
    Node* n = graph->FindNode(target);
    if (n == nullptr || !n->IsOp()) {
      return absl::NotFoundError(
          absl::StrCat("Target node '", target, "' is not in the graph"));
    }
    keep.push_back(n);
  }
  PruneForTargets(graph, keep);
  return absl::OkStatus();
}

void PruneForTargets(Graph* graph, const std::vector<Node*>& keep) {
  absl::flat_hash_set<Node*> reached(keep.begin(), keep.end());
  std::deque<Node*> queue(keep.begin(), keep.end());
  while (!queue.empty()) {
    Node* n = queue.front();
    queue.pop_front();
    for (const Edge* e : n->in_edges()) {
      if (e->src()->IsOp() && reached.insert(e->src()).second) queue.push_back(e->src());
    }
  }
  for (Node* n : graph->op_nodes()) {
    if (!reached.contains(n)) graph->RemoveNode(n);
  }
  graph->FixupSourceAndSinkEdges();
}

}  // namespace minitf::subgraph
