#include "optimizer/batch_matmul_fusion.h"

#include <string>
#include <vector>

#include "optimizer/fusion_rules.h"
#include "optimizer/node_rules.h"
#include "platform/status_macros.h"
#include "runtime/node_def_util.h"

namespace minitf {
namespace {

// The BatchMatMulV2, the Mul and the Add, and the inputs the fused node
// keeps.
struct Pattern {
  Node* batch_matmul = nullptr;
  Node* mul = nullptr;
  Node* add = nullptr;
  const Edge* factor = nullptr;
  const Edge* addend = nullptr;
};

// A node the fusion may take in: `op`, float, on the CPU beside `root`.
bool Fusable(const Node& n, const char* op, const Node& root) {
  return n.type_string() == op && MayChange(n) && NoControlEdges(n) && SameDevice(n, root) &&
         TypeIsFloat(n);
}

const PartialTensorShape* KnownShape(const Node& n, int output) {
  if (output >= static_cast<int>(n.output_shapes().size())) return nullptr;
  const PartialTensorShape& shape = n.output_shapes()[output];
  return shape.IsFullyDefined() ? &shape : nullptr;
}

// Input `i` of `n` when `op` gives it (output 0) and `n` alone reads that
// node; else null.
const Edge* OnlyInputFrom(const Node& n, int i, const char* op) {
  const Edge* e = DataInput(n, i);
  if (e == nullptr || e->src_output() != 0 || !Fusable(*e->src(), op, n) ||
      OnlyConsumer(*e->src()) != &n) {
    return nullptr;
  }
  return e;
}

bool Match(Node* add, Pattern* p) {
  const std::string& op = add->type_string();
  if (op != "Add" && op != "AddV2") return false;
  if (!Fusable(*add, op.c_str(), *add) || DeviceTypeOf(add->assigned_device_name()) != "CPU") {
    return false;
  }
  for (int i = 0; i < 2; ++i) {
    const Edge* mul = OnlyInputFrom(*add, i, "Mul");
    if (mul == nullptr) continue;
    for (int j = 0; j < 2; ++j) {
      const Edge* product = OnlyInputFrom(*mul->src(), j, "BatchMatMulV2");
      if (product == nullptr) continue;
      *p = {product->src(), mul->src(), add, DataInput(*mul->src(), 1 - j), DataInput(*add, 1 - i)};
      if (p->factor == nullptr || p->addend == nullptr) return false;
      const PartialTensorShape* out = KnownShape(*p->batch_matmul, 0);
      const PartialTensorShape* factor = KnownShape(*p->factor->src(), p->factor->src_output());
      const PartialTensorShape* addend = KnownShape(*p->addend->src(), p->addend->src_output());
      if (out == nullptr || factor == nullptr || addend == nullptr || out->dims() != 4 ||
          factor->num_elements() != 1 || addend->dims() != 4 || addend->dim_size(1) != 1 ||
          !FullyDefinedAndEqual(*p->batch_matmul, 0, *add, 0)) {
        return false;
      }
      // The fused node must not read its own output.
      return !DependsOn(p->factor->src(), p->batch_matmul) &&
             !DependsOn(p->addend->src(), p->batch_matmul);
    }
  }
  return false;
}

NodeDef FusedDef(const Pattern& p) {
  NodeDef def;
  def.name = p.add->name();
  def.op = "_MklFusedBatchMatMulV2";
  def.device = p.add->requested_device();
  const AttrValueMap& attrs = p.batch_matmul->def().attr;
  for (const char* attr : {"T", "adj_x", "adj_y"}) {
    if (auto it = attrs.find(attr); it != attrs.end()) def.attr[attr] = it->second;
  }
  def.attr["num_args"] = int64_t{2};
  def.attr["fused_ops"] = std::vector<std::string>{"Mul", "Add"};
  return def;
}

absl::Status Fuse(Graph* graph, const Pattern& p) {
  std::vector<OutputRef> inputs;
  for (int i = 0; i < 2; ++i) {
    const Edge* e = DataInput(*p.batch_matmul, i);
    if (e == nullptr) return absl::InternalError("a BatchMatMulV2 without its operands");
    inputs.push_back({e->src(), e->src_output()});
  }
  inputs.push_back({p.factor->src(), p.factor->src_output()});
  inputs.push_back({p.addend->src(), p.addend->src_output()});
  const std::vector<Reader> readers = ReadersOf(*p.add);
  const std::string device = p.add->assigned_device_name();
  const std::vector<PartialTensorShape> shapes = p.add->output_shapes();
  NodeDef def = FusedDef(p);
  for (Node* n : {p.add, p.mul, p.batch_matmul}) graph->RemoveNode(n);
  MINITF_ASSIGN_OR_RETURN(Node * node, graph->AddNode(std::move(def)));
  node->set_assigned_device_name(device);
  graph->set_output_shapes(node, shapes);
  for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
    graph->AddEdge(inputs[i].node, inputs[i].output, node, i);
  }
  Reconnect(graph, node, readers);
  return absl::OkStatus();
}

}  // namespace

bool FuseBatchMatMulScaleAdd(Graph* graph, const std::function<bool(const Node*)>& consider) {
  std::vector<int> ids;
  for (const Node* n : graph->op_nodes()) ids.push_back(n->id());
  bool changed = false;
  for (int id : ids) {
    Node* n = graph->FindNodeId(id);
    Pattern p;
    if (n == nullptr || !Match(n, &p)) continue;
    if (consider && (!consider(p.batch_matmul) || !consider(p.mul) || !consider(p.add))) continue;
    if (!HasKernel(FusedDef(p), p.add->assigned_device_name())) continue;
    if (!Fuse(graph, p).ok()) continue;
    changed = true;
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

}  // namespace minitf
