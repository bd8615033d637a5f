#include "optimizer/layout_optimizer.h"

#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "optimizer/node_rules.h"
#include "runtime/node_def_util.h"

namespace minitf {
namespace {

// Dimension i of the NHWC tensor is dimension kToNhwc[i] of the NCHW one.
constexpr int kToNhwc[] = {0, 2, 3, 1};
constexpr int kToNchw[] = {0, 3, 1, 2};

// Which inputs and outputs of a layout-sensitive node are 4-D tensors in its
// data_format, and which inputs are shapes in it.
struct LayoutRule {
  std::vector<int> data_inputs;
  std::vector<int> data_outputs;
  std::vector<int> shape_inputs;
};

std::optional<LayoutRule> RuleFor(const Node& n) {
  const std::string& op = n.type_string();
  if (op == "Conv2D" || op == "_FusedConv2D" || op == "MaxPool" || op == "AvgPool" ||
      op == "BiasAdd" || op == "FusedBatchNorm" || op == "FusedBatchNormV2" ||
      op == "FusedBatchNormV3") {
    return LayoutRule{{0}, {0}, {}};
  }
  if (op == "FusedBatchNormGrad" || op == "FusedBatchNormGradV2" || op == "FusedBatchNormGradV3") {
    return LayoutRule{{0, 1}, {0}, {}};
  }
  if (op == "_FusedBatchNormEx") {
    int64_t side_inputs = 0;
    if (!GetNodeAttr(n.def(), "num_side_inputs", &side_inputs).ok()) return std::nullopt;
    if (side_inputs == 0) return LayoutRule{{0}, {0}, {}};
    return LayoutRule{{0, 5}, {0}, {}};
  }
  if (op == "Conv2DBackpropInput") return LayoutRule{{2}, {0}, {0}};
  if (op == "Conv2DBackpropFilter") return LayoutRule{{0, 2}, {}, {}};
  if (op == "BiasAddGrad") return LayoutRule{{0}, {}, {}};
  if (op == "MaxPoolGrad") return LayoutRule{{0, 1, 2}, {0}, {}};
  if (op == "AvgPoolGrad") return LayoutRule{{1}, {0}, {0}};
  return std::nullopt;
}

bool IsUnaryElementwise(const std::string& op) {
  static const auto* const kOps = new absl::flat_hash_set<std::string>{
      "Identity", "Relu", "Relu6",  "Elu",  "Selu",  "Tanh", "Sigmoid", "Softplus",
      "Neg",      "Abs",  "Square", "Sqrt", "Rsqrt", "Exp",  "Log"};
  return kOps->contains(op);
}

// Elementwise on two inputs (AddN, on any number, is asked for apart).
bool IsBinaryElementwise(const std::string& op) {
  static const auto* const kOps = new absl::flat_hash_set<std::string>{
      "Add",      "AddV2",     "Sub",     "Mul",      "Maximum",     "Minimum",
      "ReluGrad", "Relu6Grad", "EluGrad", "TanhGrad", "SigmoidGrad", "SquaredDifference"};
  return kOps->contains(op);
}

bool OnGpu(const Node& n) { return DeviceTypeOf(n.assigned_device_name()) == "GPU"; }

// The shape of `n`'s output `i`, as far as the graph knows it.
PartialTensorShape ShapeOf(const Node& n, int i) {
  if (i < static_cast<int>(n.output_shapes().size())) return n.output_shapes()[i];
  return PartialTensorShape::Unknown();
}

// `shape` reordered by `perm` when it is 4-D; unknown otherwise.
PartialTensorShape Permuted(const PartialTensorShape& shape, absl::Span<const int> perm) {
  if (shape.dims() != 4) return PartialTensorShape::Unknown();
  std::vector<int64_t> dims;
  for (int p : perm) dims.push_back(shape.dim_size(p));
  return PartialTensorShape(absl::MakeConstSpan(dims));
}

// A node beside `near` (its devices), named after it.
absl::StatusOr<Node*> AddBeside(Graph* graph, const Node& near, NodeDef def,
                                const std::string& suffix, std::vector<PartialTensorShape> shapes) {
  def.name = OptimizedNodeName(*graph, near.name(), "LayoutOptimizer", "", suffix);
  def.device = near.requested_device();
  absl::StatusOr<Node*> added = graph->AddNode(std::move(def));
  if (!added.ok()) return added.status();
  (*added)->set_assigned_device_name(near.assigned_device_name());
  graph->set_output_shapes(*added, std::move(shapes));
  return *added;
}

absl::StatusOr<Node*> AddConst(Graph* graph, const Node& near, const Tensor& value,
                               const std::string& suffix) {
  NodeDef def;
  def.op = "Const";
  def.attr["dtype"] = value.dtype();
  def.attr["value"] = value;
  return AddBeside(graph, near, std::move(def), suffix, {PartialTensorShape(value.shape())});
}

NodeDef TransposeDef(DataType type) {
  NodeDef def;
  def.op = "Transpose";
  def.attr["T"] = type;
  def.attr["Tperm"] = DT_INT32;
  return def;
}

// A Transpose of `in` by `perm`, beside `near`.
absl::StatusOr<Node*> AddTranspose(Graph* graph, const Node& near, OutputRef in,
                                   absl::Span<const int> perm, const std::string& suffix) {
  Tensor perm_value(DT_INT32, TensorShape({4}));
  for (int i = 0; i < 4; ++i) perm_value.flat<int32_t>()(i) = perm[i];
  absl::StatusOr<Node*> perm_node = AddConst(graph, near, perm_value, suffix + "_perm");
  if (!perm_node.ok()) return perm_node.status();
  // In the frame (a loop's) and the cond branch of what it transposes.
  graph->AddControlEdge(in.node, *perm_node);
  absl::StatusOr<Node*> t = AddBeside(graph, near, TransposeDef(in.node->output_type(in.output)),
                                      suffix, {Permuted(ShapeOf(*in.node, in.output), perm)});
  if (!t.ok()) return t.status();
  graph->AddEdge(in.node, in.output, *t, 0);
  graph->AddEdge(*perm_node, 0, *t, 1);
  return *t;
}

// The 4-element shape in NCHW order that input `i` of `n` is a Const of,
// reordered to NHWC; null when it is not one.
std::optional<Tensor> NhwcShapeInput(const Node& n, int i) {
  const std::vector<int64_t> nchw = ConstIntsInput(n, i);
  if (nchw.size() != 4) return std::nullopt;
  const DataType type = ConstInput(n, i)->dtype();
  Tensor out(type, TensorShape({4}));
  for (int d = 0; d < 4; ++d) {
    if (type == DT_INT32) {
      out.flat<int32_t>()(d) = static_cast<int32_t>(nchw[kToNhwc[d]]);
    } else {
      out.flat<int64_t>()(d) = nchw[kToNhwc[d]];
    }
  }
  return out;
}

// `def` in NHWC: data_format and the per-dimension attrs reordered.
NodeDef NhwcDef(const NodeDef& def) {
  NodeDef out = def;
  out.attr["data_format"] = std::string("NHWC");
  for (const char* name : {"strides", "ksize", "dilations"}) {
    std::vector<int64_t> v;
    if (!GetNodeAttr(def, name, &v).ok() || v.size() != 4) continue;
    out.attr[name] = std::vector<int64_t>{v[0], v[2], v[3], v[1]};
  }
  std::vector<int64_t> pads;
  if (GetNodeAttr(def, "explicit_paddings", &pads).ok() && pads.size() == 8) {
    std::vector<int64_t> reordered;
    for (int d : kToNhwc) {
      reordered.push_back(pads[2 * d]);
      reordered.push_back(pads[2 * d + 1]);
    }
    out.attr["explicit_paddings"] = reordered;
  }
  return out;
}

// Whether `n` is a Transpose from NHWC to NCHW (this pass's or another's).
bool IsBackToNchw(const Node& n) {
  return n.type_string() == "Transpose" &&
         ConstIntsInput(n, 1) == std::vector<int64_t>(std::begin(kToNchw), std::end(kToNchw));
}

// Gives each reader of `node`'s outputs in `outputs` a Transpose back to
// NCHW instead.
absl::Status TransposeOutputsBack(Graph* graph, Node* node, absl::Span<const int> outputs) {
  for (int k : outputs) {
    std::vector<const Edge*> readers;
    for (const Edge* e : node->out_edges()) {
      if (!e->IsControlEdge() && e->src_output() == k) readers.push_back(e);
    }
    if (readers.empty()) continue;
    absl::StatusOr<Node*> t =
        AddTranspose(graph, *node, {node, k}, kToNchw, absl::StrCat("_output", k, "_to_nchw"));
    if (!t.ok()) return t.status();
    for (const Edge* e : readers) {
      Node* dst = e->dst();
      const int input = e->dst_input();
      graph->RemoveEdge(e);
      graph->AddEdge(*t, 0, dst, input);
    }
  }
  return absl::OkStatus();
}

// A Const input of a node in NCHW terms (a shape, paddings, axes) and its
// value in NHWC terms.
struct ConstRewrite {
  int input;
  Tensor value;
};

// Replaces `n` by `def` reading its data inputs in `to_nhwc` through
// Transposes and the Const inputs `consts` names their new values, its
// outputs in `outputs` given back in NCHW. False, with the graph as it was,
// where the pieces cannot be made.
absl::StatusOr<bool> Convert(Graph* graph, Node* n, NodeDef def, absl::Span<const int> to_nhwc,
                             absl::Span<const ConstRewrite> consts, absl::Span<const int> outputs) {
  std::vector<OutputRef> inputs;
  std::vector<Node*> added;
  auto undo = [&] {
    for (Node* a : added) graph->RemoveNode(a);
    return false;
  };
  for (int i = 0; i < n->num_inputs(); ++i) {
    const Edge* e = DataInput(*n, i);
    if (e == nullptr) return undo();
    OutputRef in{e->src(), e->src_output()};
    auto rewrite = absl::c_find_if(consts, [i](const ConstRewrite& c) { return c.input == i; });
    if (rewrite != consts.end()) {
      absl::StatusOr<Node*> c =
          AddConst(graph, *n, rewrite->value, absl::StrCat("_input", i, "_nhwc"));
      if (!c.ok()) return undo();
      added.push_back(*c);
      // In the old Const's frame and branch: after what it waited for.
      for (const Edge* ce : e->src()->in_edges()) {
        if (ce->IsControlEdge() && ce->src()->IsOp()) graph->AddControlEdge(ce->src(), *c);
      }
      in = {*c, 0};
    } else if (absl::c_linear_search(to_nhwc, i)) {
      absl::StatusOr<Node*> t =
          AddTranspose(graph, *n, in, kToNhwc, absl::StrCat("_input", i, "_to_nhwc"));
      if (!t.ok()) return undo();
      added.push_back(*t);
      added.push_back(DataInput(**t, 1)->src());
      in = {*t, 0};
    }
    inputs.push_back(in);
  }
  std::vector<PartialTensorShape> out_shapes = n->output_shapes();
  for (int k : outputs) {
    if (k < static_cast<int>(out_shapes.size())) out_shapes[k] = Permuted(out_shapes[k], kToNhwc);
  }
  absl::StatusOr<Node*> replaced = ReplaceNode(graph, n, std::move(def), inputs);
  if (!replaced.ok()) return undo();
  graph->set_output_shapes(*replaced, std::move(out_shapes));
  if (absl::Status s = TransposeOutputsBack(graph, *replaced, outputs); !s.ok()) return s;
  return true;
}

// Whether a pass may change `n` here and it sits on a GPU that has the
// Transposes for its type.
bool Eligible(const Node& n, const std::function<bool(const Node*)>& consider) {
  if (!OnGpu(n) || !MayChange(n) || (consider && !consider(&n))) return false;
  return n.num_outputs() > 0 && HasKernel(TransposeDef(n.output_type(0)), n.assigned_device_name());
}

absl::StatusOr<bool> ConvertSensitive(Graph* graph, Node* n,
                                      const std::function<bool(const Node*)>& consider) {
  std::optional<LayoutRule> rule = RuleFor(*n);
  std::string format;
  if (!rule.has_value() || !Eligible(*n, consider) ||
      !GetNodeAttr(n->def(), "data_format", &format).ok() || format != "NCHW") {
    return false;
  }
  // Only images known to be 4-D: a node given another rank fails as it
  // would have, naming itself, not a Transpose.
  for (int i : rule->data_inputs) {
    const Edge* e = DataInput(*n, i);
    if (e == nullptr || ShapeOf(*e->src(), e->src_output()).dims() != 4) return false;
  }
  NodeDef def = NhwcDef(n->def());
  if (!HasKernel(def, n->assigned_device_name())) return false;
  std::vector<ConstRewrite> shapes;
  for (int i : rule->shape_inputs) {
    std::optional<Tensor> nhwc = NhwcShapeInput(*n, i);
    if (!nhwc.has_value()) return false;
    shapes.push_back({i, *std::move(nhwc)});
  }
  return Convert(graph, n, std::move(def), rule->data_inputs, shapes, rule->data_outputs);
}

// An elementwise node whose inputs are 4-D or scalars (two 4-D ones
// broadcast dimension by dimension, so the same reordering of both keeps
// their broadcast), one of which comes back from a converted node: its 4-D
// inputs and its output are reordered.
absl::StatusOr<bool> ConvertFollower(Graph* graph, Node* n,
                                     const std::function<bool(const Node*)>& consider) {
  const std::string& op = n->type_string();
  if (!IsUnaryElementwise(op) && !IsBinaryElementwise(op) && op != "AddN") return false;
  if (n->num_inputs() == 0 || n->num_outputs() != 1 || !OnGpu(*n)) return false;
  bool follows = false;
  std::vector<int> four_d;
  for (int i = 0; i < n->num_inputs(); ++i) {
    const Edge* e = DataInput(*n, i);
    if (e == nullptr) return false;
    const int rank = ShapeOf(*e->src(), e->src_output()).dims();
    if (rank == 4) {
      four_d.push_back(i);
      follows |= IsBackToNchw(*e->src());
    } else if (rank != 0) {
      return false;
    }
  }
  if (!follows || !Eligible(*n, consider)) return false;
  return Convert(graph, n, n->def(), four_d, {}, {0});
}

// Paddings [4, 2] of an NCHW image (a Const input `i` of `n`), their rows
// reordered for NHWC; nullopt when they are not a Const of that shape.
std::optional<Tensor> NhwcPaddings(const Node& n, int i) {
  const Tensor* nchw = ConstInput(n, i);
  if (nchw == nullptr || nchw->shape() != TensorShape({4, 2}) ||
      (nchw->dtype() != DT_INT32 && nchw->dtype() != DT_INT64)) {
    return std::nullopt;
  }
  Tensor out(nchw->dtype(), nchw->shape());
  for (int row = 0; row < 4; ++row) {
    for (int col = 0; col < 2; ++col) {
      const int from = 2 * kToNhwc[row] + col;
      if (nchw->dtype() == DT_INT32) {
        out.flat<int32_t>()(2 * row + col) = nchw->flat<int32_t>()(from);
      } else {
        out.flat<int64_t>()(2 * row + col) = nchw->flat<int64_t>()(from);
      }
    }
  }
  return out;
}

bool IsReduction(const std::string& op) {
  return op == "Sum" || op == "Mean" || op == "Max" || op == "Min" || op == "Prod";
}

// The Const axes (input 1) of a reduction of an NCHW image, as the same
// dimensions of the NHWC image; sets `*output_is_image` when the
// reduction keeps its dimensions (its output is an image to give back in
// NCHW). nullopt where the axes are not a Const of distinct dimensions of
// a 4-D image, or where the dimensions kept without keep_dims would come
// out in another order than in NCHW.
std::optional<Tensor> NhwcAxes(const Node& n, bool* output_is_image) {
  const Tensor* nchw = ConstInput(n, 1);
  bool keep_dims = false;
  if (nchw == nullptr || nchw->dims() > 1 ||
      (nchw->dtype() != DT_INT32 && nchw->dtype() != DT_INT64) ||
      !GetNodeAttr(n.def(), "keep_dims", &keep_dims).ok()) {
    return std::nullopt;
  }
  std::vector<int64_t> axes;
  for (int64_t k = 0; k < nchw->NumElements(); ++k) {
    int64_t a = nchw->dtype() == DT_INT32 ? nchw->flat<int32_t>()(k) : nchw->flat<int64_t>()(k);
    if (a < 0) a += 4;
    if (a < 0 || a >= 4 || absl::c_linear_search(axes, a)) return std::nullopt;
    axes.push_back(a);
  }
  if (!keep_dims) {
    // The dimensions left, by their NCHW numbers, in each layout's order.
    std::vector<int64_t> left_nchw, left_nhwc;
    for (int d = 0; d < 4; ++d) {
      if (!absl::c_linear_search(axes, d)) left_nchw.push_back(d);
      if (!absl::c_linear_search(axes, kToNhwc[d])) left_nhwc.push_back(kToNhwc[d]);
    }
    if (left_nchw != left_nhwc) return std::nullopt;
  }
  *output_is_image = keep_dims;
  Tensor out(nchw->dtype(), nchw->shape());
  for (int64_t k = 0; k < nchw->NumElements(); ++k) {
    const int64_t a = kToNchw[axes[k]];
    if (nchw->dtype() == DT_INT32) {
      out.flat<int32_t>()(k) = static_cast<int32_t>(a);
    } else {
      out.flat<int64_t>()(k) = a;
    }
  }
  return out;
}

// A Pad, PadV2 or MirrorPad with Const paddings, a Slice with Const begin
// and size, or a reduction with Const axes, whose input 0, a 4-D image,
// comes back from a converted node (Grappler's PadTransposer,
// SliceTransposer and ReduceTransposer): it works on the NHWC image, its
// Consts reordered; its output goes back to NCHW unless a reduction
// without keep_dims leaves the same dimensions in the same order in both
// layouts (the mean over height and width: [N, C] either way).
absl::StatusOr<bool> ConvertLayoutAgnostic(Graph* graph, Node* n,
                                           const std::function<bool(const Node*)>& consider) {
  const std::string& op = n->type_string();
  const bool pad = op == "Pad" || op == "PadV2" || op == "MirrorPad";
  if ((!pad && op != "Slice" && !IsReduction(op)) || n->num_outputs() != 1 || !OnGpu(*n)) {
    return false;
  }
  const Edge* image = DataInput(*n, 0);
  if (image == nullptr || !IsBackToNchw(*image->src()) ||
      ShapeOf(*image->src(), image->src_output()).dims() != 4 || !Eligible(*n, consider)) {
    return false;
  }
  std::vector<ConstRewrite> consts;
  bool output_is_image = true;
  if (pad) {
    std::optional<Tensor> paddings = NhwcPaddings(*n, 1);
    if (!paddings.has_value()) return false;
    consts.push_back({1, *std::move(paddings)});
  } else if (op == "Slice") {
    for (int i : {1, 2}) {
      std::optional<Tensor> nhwc = NhwcShapeInput(*n, i);
      if (!nhwc.has_value()) return false;
      consts.push_back({i, *std::move(nhwc)});
    }
  } else {
    std::optional<Tensor> axes = NhwcAxes(*n, &output_is_image);
    if (!axes.has_value()) return false;
    consts.push_back({1, *std::move(axes)});
  }
  std::vector<int> outputs;
  if (output_is_image) outputs.push_back(0);
  return Convert(graph, n, n->def(), {0}, consts, outputs);
}

}  // namespace

bool ConvertNchwToNhwcOnGpu(Graph* graph, const std::function<bool(const Node*)>& consider) {
  bool changed = false;
  std::vector<int> ids;
  for (const Node* n : graph->op_nodes()) ids.push_back(n->id());
  for (int id : ids) {
    Node* n = graph->FindNodeId(id);
    if (n != nullptr) changed |= ConvertSensitive(graph, n, consider).value_or(false);
  }
  // The elementwise nodes after the converted ones, until none is left.
  absl::flat_hash_set<std::string> followed;
  for (bool more = true; more;) {
    more = false;
    std::vector<int> candidates;
    for (const Node* n : graph->op_nodes()) {
      if (!followed.contains(n->name())) candidates.push_back(n->id());
    }
    for (int id : candidates) {
      Node* n = graph->FindNodeId(id);
      if (n == nullptr) continue;
      const std::string name = n->name();
      if (ConvertFollower(graph, n, consider).value_or(false) ||
          ConvertLayoutAgnostic(graph, n, consider).value_or(false)) {
        more = changed = true;
        followed.insert(name);
      }
    }
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

}  // namespace minitf
