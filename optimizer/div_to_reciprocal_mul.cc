#include "optimizer/div_to_reciprocal_mul.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "optimizer/node_rules.h"
#include "runtime/types.h"

namespace minitf {
namespace {

// 1 / c element by element, in c's type; nullopt for another type.
std::optional<Tensor> Reciprocals(const Tensor& c) {
  Tensor r(c.dtype(), c.shape());
  switch (c.dtype()) {
    case DT_FLOAT:
      for (int64_t i = 0; i < c.NumElements(); ++i) r.flat<float>()(i) = 1.0f / c.flat<float>()(i);
      return r;
    case DT_DOUBLE:
      for (int64_t i = 0; i < c.NumElements(); ++i) r.flat<double>()(i) = 1.0 / c.flat<double>()(i);
      return r;
    default:
      return std::nullopt;
  }
}

// Replaces `div` as the header says; false when it stays.
bool Reduce(Graph* graph, Node* div) {
  const Edge* x = DataInput(*div, 0);
  const Tensor* divisor = ConstInput(*div, 1);
  if (x == nullptr || divisor == nullptr || divisor->dtype() != div->output_type(0)) return false;
  std::optional<Tensor> reciprocals = Reciprocals(*divisor);
  if (!reciprocals.has_value()) return false;
  const std::string& device = div->assigned_device_name();
  NodeDef mul;
  mul.op = "Mul";
  mul.attr["T"] = div->output_type(0);
  if (!HasKernel(mul, device)) return false;
  NodeDef constant;
  constant.name = OptimizedNodeName(*graph, div->name(), "ConstantFolding", "", "_recip");
  constant.op = "Const";
  constant.device = div->requested_device();
  constant.attr["dtype"] = reciprocals->dtype();
  constant.attr["value"] = *reciprocals;
  absl::StatusOr<Node*> added = graph->AddNode(std::move(constant));
  if (!added.ok()) return false;
  Node* c = *added;
  c->set_assigned_device_name(device);
  graph->set_output_shapes(c, {PartialTensorShape(reciprocals->shape())});
  const std::vector<OutputRef> inputs = {{x->src(), x->src_output()}, {c, 0}};
  if (!ReplaceNode(graph, div, std::move(mul), inputs).ok()) {
    graph->RemoveNode(c);
    return false;
  }
  return true;
}

}  // namespace

bool ReduceDivToReciprocalMul(Graph* graph, const std::function<bool(const Node*)>& consider) {
  bool changed = false;
  std::vector<int> ids;
  for (const Node* n : graph->op_nodes()) {
    if (n->type_string() == "RealDiv" || n->type_string() == "Div") ids.push_back(n->id());
  }
  for (int id : ids) {
    Node* n = graph->FindNodeId(id);
    if (n == nullptr || !MayChange(*n) || (consider && !consider(n))) continue;
    if (Reduce(graph, n)) changed = true;
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

}  // namespace minitf
