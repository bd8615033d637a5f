#include "optimizer/node_rules.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "platform/status_macros.h"
#include "runtime/kernel_registry.h"
#include "runtime/types.h"

namespace minitf {
namespace {

bool HasRefType(const DataTypeVector& types) {
  return std::any_of(types.begin(), types.end(), [](DataType t) { return IsRefType(t); });
}

// A node without inputs of its own (a Const), which any frame may read.
bool IsFree(const Node& n) {
  for (const Edge* e : n.in_edges()) {
    if (!e->src()->IsSource()) return false;
  }
  return true;
}

bool Reads(absl::Span<const OutputRef> inputs, const Edge& e) {
  return std::any_of(inputs.begin(), inputs.end(), [&](const OutputRef& in) {
    return in.node == e.src() && in.output == e.src_output();
  });
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

const Tensor* ConstInput(const Node& n, int i) {
  const Edge* e = DataInput(n, i);
  if (e == nullptr || e->src()->type_string() != "Const") return nullptr;
  auto it = e->src()->def().attr.find("value");
  if (it == e->src()->def().attr.end() || !it->second.Holds<Tensor>()) return nullptr;
  return &it->second.tensor();
}

std::vector<int64_t> ConstIntsInput(const Node& n, int i) {
  const Tensor* value = ConstInput(n, i);
  std::vector<int64_t> out;
  if (value == nullptr || value->dims() != 1) return out;
  if (value->dtype() != DT_INT32 && value->dtype() != DT_INT64) return out;
  for (int64_t k = 0; k < value->NumElements(); ++k) {
    out.push_back(value->dtype() == DT_INT64 ? value->flat<int64_t>()(k)
                                             : value->flat<int32_t>()(k));
  }
  return out;
}

bool MayChange(const Node& n) {
  return n.IsOp() && n.op_def() != nullptr && !n.op_def()->is_stateful && !n.IsControlFlow() &&
         !IsFeedFetchOrTransfer(n) && !HasRefInputOrOutput(n);
}

std::string DeviceTypeOf(const std::string& device) {
  const size_t at = device.rfind("/device:");
  if (at == std::string::npos) return "";
  const size_t begin = at + 8;
  const size_t end = device.find(':', begin);
  return device.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// Whether this build registers CUDA kernels (MINITF_ENABLE_CUDA).
bool BuildHasCudaKernels() {
  static const bool has = [] {
    const KernelRegistry* registry = KernelRegistry::Global();
    for (const std::string& op : registry->Ops()) {
      for (const KernelRegistration* reg : registry->KernelsForOp(op)) {
        if (reg->def.platform == "CUDA") return true;
      }
    }
    return false;
  }();
  return has;
}

bool HasKernel(const NodeDef& def, const std::string& device) {
  const std::string type = DeviceTypeOf(device);
  if (type.empty()) return false;
  const KernelRegistry* registry = KernelRegistry::Global();
  if (registry->FindKernel(type, def).ok()) return true;
  // A GPU's kernels are its stream platform's; the graph does not say
  // which platform the device has, so every one the build has must have one.
  return type == "GPU" && registry->FindKernel(type, def, "SimGPU").ok() &&
         (!BuildHasCudaKernels() || registry->FindKernel(type, def, "CUDA").ok());
}

std::vector<Reader> ReadersOf(const Node& n) {
  std::vector<Reader> readers;
  for (const Edge* e : n.out_edges()) {
    if (!e->dst()->IsSink()) readers.push_back({e->dst(), e->src_output(), e->dst_input()});
  }
  return readers;
}

void Reconnect(Graph* graph, Node* node, absl::Span<const Reader> readers) {
  for (const Reader& r : readers) {
    if (r.output == kControlSlot) {
      graph->AddControlEdge(node, r.dst);
    } else {
      graph->AddEdge(node, r.output, r.dst, r.input);
    }
  }
}

std::string OptimizedNodeName(const Graph& graph, const std::string& name,
                              absl::string_view optimizer, absl::string_view prefix,
                              absl::string_view suffix) {
  const size_t slash = name.rfind('/');
  const std::string scope = slash == std::string::npos ? "" : name.substr(0, slash + 1);
  const std::string base =
      absl::StrCat(scope, optimizer, "/", prefix, name.substr(scope.size()), suffix);
  std::string unique = base;
  for (int i = 1; graph.FindNode(unique) != nullptr; ++i) unique = absl::StrCat(base, "_", i);
  return unique;
}

absl::StatusOr<Node*> ReplaceNode(Graph* graph, Node* n, NodeDef def,
                                  absl::Span<const OutputRef> inputs) {
  std::vector<Node*> waits_for;  // Control inputs, and the dropped inputs' nodes.
  std::vector<int> dropped;  // Ids: removing one may remove another.
  for (const Edge* e : n->in_edges()) {
    if (e->src()->IsSource() || (!e->IsControlEdge() && Reads(inputs, *e))) continue;
    if (!e->IsControlEdge()) dropped.push_back(e->src()->id());
    if (e->IsControlEdge() || !IsFree(*e->src())) waits_for.push_back(e->src());
  }
  std::sort(waits_for.begin(), waits_for.end(),
            [](const Node* a, const Node* b) { return a->id() < b->id(); });
  waits_for.erase(std::unique(waits_for.begin(), waits_for.end()), waits_for.end());
  const std::vector<Reader> readers = ReadersOf(*n);
  def.name = n->name();
  def.device = n->requested_device();
  const std::string device = n->assigned_device_name();
  const std::vector<PartialTensorShape> shapes = n->output_shapes();
  graph->RemoveNode(n);
  MINITF_ASSIGN_OR_RETURN(Node * node, graph->AddNode(std::move(def)));
  node->set_assigned_device_name(device);
  graph->set_output_shapes(node, shapes);
  for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
    graph->AddEdge(inputs[i].node, inputs[i].output, node, i);
  }
  for (Node* w : waits_for) graph->AddControlEdge(w, node);
  Reconnect(graph, node, readers);
  for (int id : dropped) {
    if (Node* d = graph->FindNodeId(id); d != nullptr) RemoveIfUnread(graph, d);
  }
  return node;
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
