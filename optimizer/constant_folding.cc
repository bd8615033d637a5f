#include "optimizer/constant_folding.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "optimizer/node_rules.h"
#include "platform/logging.h"
#include "platform/status_macros.h"
#include "runtime/cancellation.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_kernel.h"
#include "runtime/types.h"

namespace minitf {
namespace {

using ControlDeps = absl::flat_hash_set<Node*>;

bool IsShapeOp(const Node& n) {
  const std::string& op = n.type_string();
  return op == "Shape" || op == "ShapeN" || op == "Size" || op == "Rank";
}

bool IsConst(const Node& n) { return n.type_string() == "Const"; }

// The shape of data input i of `n` as shape inference left it.
const PartialTensorShape* InputShape(const Node& n, int i) {
  absl::StatusOr<const Edge*> e = n.input_edge(i);
  if (!e.ok()) return nullptr;
  return &(*e)->src()->output_shapes()[(*e)->src_output()];
}

// Whether what a Shape, ShapeN, Size or Rank reports is known already.
bool ShapeOpIsKnown(const Node& n) {
  if (!IsShapeOp(n)) return false;
  for (int i = 0; i < n.num_inputs(); ++i) {
    const PartialTensorShape* shape = InputShape(n, i);
    if (shape == nullptr) return false;
    const bool known = n.type_string() == "Rank" ? !shape->unknown_rank()
                                                 : shape->IsFullyDefined();
    if (!known) return false;
  }
  return true;
}

bool OutputKnownTooLarge(const Node& n, int64_t limit) {
  for (int i = 0; i < n.num_outputs(); ++i) {
    const PartialTensorShape& shape = n.output_shapes()[i];
    if (!shape.IsFullyDefined()) continue;
    const int64_t size = DataTypeSize(n.output_type(i));
    if (size > 0 && shape.num_elements() > limit / size) return true;
  }
  return false;
}

bool MayFold(const Node& n, const ConstantFoldingOptions& options) {
  if (!MayChange(n) || n.num_outputs() == 0) return false;
  if (options.consider && !options.consider(&n)) return false;
  if (IsConst(n)) return true;
  if (OutputKnownTooLarge(n, options.max_constant_size_in_bytes)) return false;
  return KernelRegistry::Global()->FindKernel(DEVICE_CPU, n.def()).ok();
}

// The nodes whose value is known, in topological order, each with the
// non-constant nodes it waits for through control edges (or, for a Shape of
// a computed tensor, the node computing it).
struct Foldable {
  std::vector<Node*> nodes;
  absl::flat_hash_map<const Node*, ControlDeps> deps;
};

Foldable FindFoldable(const std::vector<Node*>& order, const ConstantFoldingOptions& options) {
  Foldable found;
  for (Node* n : order) {
    if (!MayFold(*n, options)) continue;
    bool inputs_known = IsConst(*n) || n->num_inputs() > 0;
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() && !found.deps.contains(e->src())) inputs_known = false;
    }
    if (!inputs_known && !ShapeOpIsKnown(*n)) continue;
    ControlDeps deps;
    for (const Edge* e : n->in_edges()) {
      Node* src = e->src();
      if (src->IsSource()) continue;
      auto it = found.deps.find(src);
      if (it == found.deps.end()) {
        deps.insert(src);
      } else {
        deps.insert(it->second.begin(), it->second.end());
      }
    }
    found.deps.emplace(n, std::move(deps));
    found.nodes.push_back(n);
  }
  return found;
}

template <typename T>
Tensor Vector(const std::vector<int64_t>& values) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<T>()(i) = static_cast<T>(values[i]);
  return t;
}

absl::StatusOr<Tensor> ShapeTensor(const PartialTensorShape& shape, DataType type) {
  std::vector<int64_t> dims(shape.dim_sizes().begin(), shape.dim_sizes().end());
  if (type == DT_INT64) return Vector<int64_t>(dims);
  for (int64_t d : dims) {
    if (d > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError("a dimension does not fit out_type int32");
    }
  }
  return Vector<int32_t>(dims);
}

// What Shape, ShapeN, Size or Rank output from the inferred shapes.
absl::StatusOr<std::vector<Tensor>> ShapeOpValues(const Node& n) {
  DataType out_type = DT_INT32;
  if (n.type_string() != "Rank") {
    MINITF_RETURN_IF_ERROR(GetNodeAttr(n.def(), "out_type", &out_type));
  }
  std::vector<Tensor> values;
  for (int i = 0; i < n.num_inputs(); ++i) {
    const PartialTensorShape& shape = *InputShape(n, i);
    if (n.type_string() == "Rank") {
      values.push_back(Tensor::Scalar<int32_t>(shape.dims()));
    } else if (n.type_string() == "Size") {
      const int64_t size = shape.num_elements();
      if (out_type == DT_INT64) {
        values.push_back(Tensor::Scalar<int64_t>(size));
      } else if (size > std::numeric_limits<int32_t>::max()) {
        return absl::InvalidArgumentError("the size does not fit out_type int32");
      } else {
        values.push_back(Tensor::Scalar<int32_t>(static_cast<int32_t>(size)));
      }
    } else {
      MINITF_ASSIGN_OR_RETURN(Tensor t, ShapeTensor(shape, out_type));
      values.push_back(std::move(t));
    }
  }
  return values;
}

// Runs the CPU kernel of `n` once on `host`.
absl::StatusOr<std::vector<Tensor>> RunOnHost(const Node& n, Device* host,
                                              std::vector<Tensor> inputs) {
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel,
                          CreateOpKernel(DEVICE_CPU, host, n.def()));
  if (kernel->AsAsync() != nullptr) {
    return absl::UnimplementedError("asynchronous kernels are not folded");
  }
  std::vector<TensorValue> values;
  for (Tensor& t : inputs) values.push_back(TensorValue{&t, nullptr});
  CancellationManager cancellation;
  OpKernelContext::Params params;
  params.device = host;
  params.op_kernel = kernel.get();
  params.inputs = values;
  params.cancellation_manager = &cancellation;
  OpKernelContext ctx(&params);
  host->Compute(kernel.get(), &ctx);
  MINITF_RETURN_IF_ERROR(ctx.status());
  std::vector<Tensor> outputs;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    OpKernelContext::Output* slot = ctx.mutable_output_slot(i);
    if (!slot->is_set || slot->ref != nullptr) {
      return absl::InternalError(absl::StrCat("output ", i, " was not set"));
    }
    outputs.push_back(slot->value);
  }
  return outputs;
}

// The values of the foldable nodes that could be computed. A node whose
// kernel fails, or that reads one that failed, has none.
absl::flat_hash_map<const Node*, std::vector<Tensor>> Evaluate(const Foldable& foldable,
                                                               Device* host) {
  absl::flat_hash_map<const Node*, std::vector<Tensor>> values;
  for (Node* n : foldable.nodes) {
    absl::StatusOr<std::vector<Tensor>> result;
    if (IsConst(*n)) {
      Tensor value;
      absl::Status s = GetNodeAttr(n->def(), "value", &value);
      if (!s.ok()) continue;
      result = std::vector<Tensor>{value};
    } else if (ShapeOpIsKnown(*n)) {
      result = ShapeOpValues(*n);
    } else {
      std::vector<Tensor> inputs(n->num_inputs());
      bool have_inputs = true;
      for (const Edge* e : n->in_edges()) {
        if (e->IsControlEdge()) continue;
        auto it = values.find(e->src());
        if (it == values.end()) {
          have_inputs = false;
          break;
        }
        inputs[e->dst_input()] = it->second[e->src_output()];
      }
      if (!have_inputs) continue;
      result = RunOnHost(*n, host, std::move(inputs));
    }
    if (!result.ok()) {
      VLOG(1, "ConstantFold: '{}' ({}) left as it is: {}", n->name(), n->type_string(),
           result.status().message());
      continue;
    }
    values.emplace(n, *std::move(result));
  }
  return values;
}

// A Const holding `value` on the device of `like`, after `deps`.
absl::StatusOr<Node*> AddConst(Graph* graph, const std::string& name, const Node& like,
                               const Tensor& value, const ControlDeps& deps) {
  NodeDef def;
  def.name = name;
  def.op = "Const";
  def.device = like.requested_device();
  def.attr["dtype"] = value.dtype();
  def.attr["value"] = value;
  MINITF_ASSIGN_OR_RETURN(Node * c, graph->AddNode(std::move(def)));
  c->set_assigned_device_name(like.assigned_device_name());
  graph->set_output_shapes(c, {PartialTensorShape(value.shape())});
  std::vector<Node*> sorted(deps.begin(), deps.end());
  std::sort(sorted.begin(), sorted.end(), [](Node* a, Node* b) { return a->id() < b->id(); });
  for (Node* d : sorted) graph->AddControlEdge(d, c);
  return c;
}

std::string UnusedName(const Graph& graph, const std::string& base) {
  for (int i = 0;; ++i) {
    std::string name = absl::StrCat(base, "/__cf__", i);
    if (graph.FindNode(name) == nullptr) return name;
  }
}

bool OnlyFeedsSink(const Node& n) {
  return std::all_of(n.out_edges().begin(), n.out_edges().end(),
                     [](const Edge* e) { return e->dst()->IsSink(); });
}

// Moves every edge of `from` to a new Const named `name`, and removes `from`.
absl::Status RenameConst(Graph* graph, Node* from, const std::string& name) {
  NodeDef def = from->def();
  def.name = name;
  MINITF_ASSIGN_OR_RETURN(Node * to, graph->AddNode(std::move(def)));
  to->set_assigned_device_name(from->assigned_device_name());
  graph->set_output_shapes(to, from->output_shapes());
  for (const Edge* e : from->in_edges()) {
    if (!e->src()->IsSource()) graph->AddControlEdge(e->src(), to);
  }
  for (const Edge* e : from->out_edges()) {
    if (e->dst()->IsSink()) continue;
    if (e->IsControlEdge()) {
      graph->AddControlEdge(to, e->dst());
    } else {
      graph->AddEdge(to, e->src_output(), e->dst(), e->dst_input());
    }
  }
  graph->RemoveNode(from);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> ConstantFold(const ConstantFoldingOptions& options, Device* host,
                                  Graph* graph) {
  MINITF_ASSIGN_OR_RETURN(std::vector<Node*> order, graph->TopologicalOrder());
  const Foldable foldable = FindFoldable(order, options);
  const auto values = Evaluate(foldable, host);

  // Every computed output a node outside the computed set reads becomes a
  // Const.
  bool changed = false;
  std::vector<std::pair<std::string, int>> made;  // (original, Const node id)
  for (Node* n : foldable.nodes) {
    auto value = values.find(n);
    if (IsConst(*n) || value == values.end()) continue;
    absl::flat_hash_map<int, std::vector<const Edge*>> outside;
    for (const Edge* e : n->out_edges()) {
      if (!e->IsControlEdge() && !e->dst()->IsSink() && !values.contains(e->dst())) {
        outside[e->src_output()].push_back(e);
      }
    }
    for (auto& [output, edges] : outside) {
      const Tensor& tensor = value->second[output];
      if (static_cast<int64_t>(tensor.TotalBytes()) > options.max_constant_size_in_bytes) {
        continue;
      }
      MINITF_ASSIGN_OR_RETURN(Node * c, AddConst(graph, UnusedName(*graph, n->name()), *n,
                                                 tensor, foldable.deps.at(n)));
      for (const Edge* e : edges) {
        Node* dst = e->dst();
        const int dst_input = e->dst_input();
        graph->RemoveEdge(e);
        graph->AddEdge(c, 0, dst, dst_input);
      }
      made.emplace_back(outside.size() == 1 ? n->name() : "", c->id());
      changed = true;
    }
  }

  // The computed nodes nothing reads any more go, the last first.
  for (auto it = foldable.nodes.rbegin(); it != foldable.nodes.rend(); ++it) {
    Node* n = *it;
    if (!values.contains(n) || !OnlyFeedsSink(*n)) continue;
    graph->RemoveNode(n);
    changed = true;
  }
  // A Const that stands for a removed node takes its name.
  for (const auto& [original, id] : made) {
    if (original.empty() || graph->FindNode(original) != nullptr) continue;
    MINITF_RETURN_IF_ERROR(RenameConst(graph, graph->FindNodeId(id), original));
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

}  // namespace minitf
