#include "optimizer/convert_pow.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "optimizer/node_rules.h"
#include "runtime/types.h"

namespace minitf {
namespace {

// The one value every element of the Const feeding the exponent holds.
std::optional<double> UniformExponent(const Node& pow) {
  const Tensor* exponent = ConstInput(pow, 1);
  if (exponent == nullptr) return std::nullopt;
  const Tensor& t = *exponent;
  std::optional<double> value;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    double v;
    switch (t.dtype()) {
      case DT_FLOAT: v = t.flat<float>()(i); break;
      case DT_DOUBLE: v = t.flat<double>()(i); break;
      case DT_INT32: v = t.flat<int32_t>()(i); break;
      case DT_INT64: v = static_cast<double>(t.flat<int64_t>()(i)); break;
      default: return std::nullopt;
    }
    if (value.has_value() && v != *value) return std::nullopt;
    value = v;
  }
  return value;
}

// Whether the output has x's shape: the exponent is a scalar, or both
// shapes are fully known and equal.
bool KeepsShape(const Node& pow) {
  const Edge* x = DataInput(pow, 0);
  const Tensor* exponent = ConstInput(pow, 1);
  if (x == nullptr || exponent == nullptr) return false;
  if (exponent->dims() == 0) return true;
  const PartialTensorShape& x_shape = x->src()->output_shapes()[x->src_output()];
  const PartialTensorShape& out = pow.output_shapes()[0];
  return x_shape.IsFullyDefined() && out.IsFullyDefined() && x_shape == out;
}

// The op x^k becomes, or null.
const char* Replacement(double k) {
  if (k == 2) return "Square";
  if (k == 3) return "Mul";
  if (k == 1) return "Identity";
  if (k == 0.5) return "Sqrt";
  if (k == 0) return "OnesLike";
  if (k == -0.5) return "Rsqrt";
  if (k == -1) return "Reciprocal";
  return nullptr;
}

NodeDef OpDef(const std::string& op, DataType type) {
  NodeDef def;
  def.op = op;
  def.attr["T"] = type;
  return def;
}

// Replaces `pow` (whose exponent is k) as the header says; false when it
// stays.
bool Convert(Graph* graph, Node* pow, double k) {
  const char* op = Replacement(k);
  if (op == nullptr || !KeepsShape(*pow)) return false;
  const std::string& device = pow->assigned_device_name();
  if (k == 3 && DeviceTypeOf(device) != "CPU") return false;
  const DataType type = pow->output_type(0);
  NodeDef def = OpDef(op, type);
  if (!HasKernel(def, device) || (k == 3 && !HasKernel(OpDef("Square", type), device))) {
    return false;
  }
  const Edge* x = DataInput(*pow, 0);
  std::vector<OutputRef> inputs = {{x->src(), x->src_output()}};
  Node* inner = nullptr;
  if (k == 3) {
    NodeDef square = OpDef("Square", type);
    square.name =
        OptimizedNodeName(*graph, pow->name(), "ArithmeticOptimizer", "ConvertPow_", "_inner");
    square.device = pow->requested_device();
    absl::StatusOr<Node*> added = graph->AddNode(std::move(square));
    if (!added.ok()) return false;
    inner = *added;
    inner->set_assigned_device_name(device);
    graph->set_output_shapes(inner, pow->output_shapes());
    graph->AddEdge(x->src(), x->src_output(), inner, 0);
    inputs.push_back({inner, 0});
  }
  if (!ReplaceNode(graph, pow, std::move(def), inputs).ok()) {
    if (inner != nullptr) graph->RemoveNode(inner);
    return false;
  }
  return true;
}

}  // namespace

bool ConvertPow(Graph* graph, const std::function<bool(const Node*)>& consider) {
  bool changed = false;
  std::vector<int> ids;
  for (const Node* n : graph->op_nodes()) {
    if (n->type_string() == "Pow") ids.push_back(n->id());
  }
  for (int id : ids) {
    Node* n = graph->FindNodeId(id);
    if (n == nullptr || !MayChange(*n) || (consider && !consider(n))) continue;
    const std::optional<double> k = UniformExponent(*n);
    if (k.has_value() && Convert(graph, n, *k)) changed = true;
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

}  // namespace minitf
