#include "optimizer/remapper.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "optimizer/fusion_rules.h"
#include "optimizer/gelu_pattern.h"
#include "optimizer/node_rules.h"
#include "platform/status_macros.h"
#include "runtime/node_def_util.h"

namespace minitf {
namespace {

bool IsActivation(const Node& n) {
  const std::string& op = n.type_string();
  return op == "Relu" || op == "Relu6" || op == "Elu" || op == "Tanh";
}

// A contraction (MatMul or Conv2D), the BiasAdd that alone reads it, and the
// activation that alone reads the sum, or a MatMul's GELU of the sum, if any.
struct Pattern {
  Node* contraction = nullptr;
  Node* bias_add = nullptr;
  Node* activation = nullptr;  // May be null.
  std::optional<GeluPattern> gelu;
  // A MatMul's residual connection on the CPU: the Add of the sum and an
  // addend of its shape, which takes the place of an activation.
  Node* add = nullptr;
  const Edge* addend = nullptr;
  Node* Last() const {
    if (add != nullptr) return add;
    if (gelu.has_value()) return gelu->output;
    return activation != nullptr ? activation : bias_add;
  }
  // fused_ops' activation; empty for none.
  std::string ActivationName() const {
    if (gelu.has_value()) return gelu->activation;
    return activation != nullptr ? activation->type_string() : "";
  }
};

// Grappler's contraction + BiasAdd + Add (its oneDNN CPU fusion): `add`,
// an Add, AddV2 or two-input AddN on the CPU in float, reads the sum once
// and an addend of the sum's known shape (no broadcasting) that does not
// come from the sum, and has no control edges in or out.
bool MatchResidualAdd(const Node& bias_add, Node* add, Pattern* p) {
  const std::string& op = add->type_string();
  if ((op != "Add" && op != "AddV2" && op != "AddN") || add->num_inputs() != 2 ||
      !MayChange(*add) || !SameDevice(*add, bias_add) || !NoControlEdges(*add) ||
      !TypeIsFloat(*add) || DeviceTypeOf(add->assigned_device_name()) != "CPU") {
    return false;
  }
  const Edge* in0 = DataInput(*add, 0);
  const Edge* in1 = DataInput(*add, 1);
  if (in0 == nullptr || in1 == nullptr) return false;
  const bool first = in0->src() == &bias_add;
  if (first == (in1->src() == &bias_add)) return false;  // The sum twice, or not at all.
  const Edge* addend = first ? in1 : in0;
  if (!FullyDefinedAndEqual(bias_add, 0, *addend->src(), addend->src_output()) ||
      !FullyDefinedAndEqual(bias_add, 0, *add, 0) || DependsOn(addend->src(), &bias_add)) {
    return false;
  }
  p->add = add;
  p->addend = addend;
  return true;
}

bool Match(Node* bias_add, Pattern* p) {
  if (bias_add->type_string() != "BiasAdd" || !MayChange(*bias_add)) return false;
  const Edge* in = DataInput(*bias_add, 0);
  if (in == nullptr) return false;
  Node* contraction = in->src();
  const std::string& op = contraction->type_string();
  if ((op != "MatMul" && op != "Conv2D") || !MayChange(*contraction) ||
      OnlyConsumer(*contraction) != bias_add || !SameDevice(*contraction, *bias_add)) {
    return false;
  }
  // The bias must go along the contraction's channels: a MatMul's columns
  // (BiasAdd's NHWC), a Conv2D's depth in its own data_format.
  std::string format, channels_format = "NHWC";
  if (!GetNodeAttr(bias_add->def(), "data_format", &format).ok()) return false;
  if (op == "Conv2D" && HasNodeAttr(contraction->def(), "data_format") &&
      !GetNodeAttr(contraction->def(), "data_format", &channels_format).ok()) {
    return false;
  }
  if (format != channels_format) return false;
  p->contraction = contraction;
  p->bias_add = bias_add;
  p->activation = nullptr;
  p->gelu.reset();
  p->add = nullptr;
  p->addend = nullptr;
  Node* next = OnlyConsumer(*bias_add);
  if (next != nullptr && IsActivation(*next) && MayChange(*next) && SameDevice(*next, *bias_add)) {
    p->activation = next;
  } else if (op == "MatMul" && next != nullptr && MatchResidualAdd(*bias_add, next, p)) {
    return true;
  } else if (op == "MatMul") {
    // As Grappler, a GELU fuses into MatMuls only.
    p->gelu = MatchGelu(*bias_add);
  }
  return true;
}

NodeDef FusedDef(const Pattern& p) {
  NodeDef def;
  def.name = p.Last()->name();
  const bool conv = p.contraction->type_string() == "Conv2D";
  def.op = conv ? "_FusedConv2D" : "_FusedMatMul";
  def.device = p.bias_add->requested_device();
  // The contraction's own attrs: a Conv2D's window, a MatMul's transposes.
  constexpr const char* kConvAttrs[] = {"T",           "strides",   "padding",
                                        "explicit_paddings", "data_format", "dilations",
                                        "use_cudnn_on_gpu"};
  constexpr const char* kMatMulAttrs[] = {"T", "transpose_a", "transpose_b"};
  const absl::Span<const char* const> names =
      conv ? absl::Span<const char* const>(kConvAttrs) : absl::Span<const char* const>(kMatMulAttrs);
  const AttrValueMap& attrs = p.contraction->def().attr;
  for (const char* attr : names) {
    if (auto it = attrs.find(attr); it != attrs.end()) def.attr[attr] = it->second;
  }
  def.attr["num_args"] = int64_t{p.add != nullptr ? 2 : 1};
  std::vector<std::string> fused_ops = {"BiasAdd"};
  if (p.add != nullptr) fused_ops.push_back("Add");
  if (const std::string act = p.ActivationName(); !act.empty()) fused_ops.push_back(act);
  def.attr["fused_ops"] = fused_ops;
  return def;
}

absl::Status Fuse(Graph* graph, const Pattern& p) {
  NodeDef def = FusedDef(p);
  struct In {
    Node* src;
    int output;
  };
  std::vector<In> inputs;
  for (int i = 0; i < 2; ++i) {
    const Edge* e = DataInput(*p.contraction, i);
    inputs.push_back({e->src(), e->src_output()});
  }
  const Edge* bias = DataInput(*p.bias_add, 1);
  inputs.push_back({bias->src(), bias->src_output()});
  if (p.addend != nullptr) inputs.push_back({p.addend->src(), p.addend->src_output()});
  std::vector<Node*> control;
  std::vector<Node*> fused = {p.contraction, p.bias_add};
  if (p.activation != nullptr) fused.push_back(p.activation);
  if (p.add != nullptr) fused.push_back(p.add);
  if (p.gelu.has_value()) fused.insert(fused.end(), p.gelu->nodes.begin(), p.gelu->nodes.end());
  for (Node* n : fused) {
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge() && e->src()->IsOp()) control.push_back(e->src());
    }
  }
  const std::vector<Reader> readers = ReadersOf(*p.Last());
  const std::string device = p.bias_add->assigned_device_name();
  const std::vector<PartialTensorShape> shapes = p.Last()->output_shapes();
  for (Node* n : fused) graph->RemoveNode(n);
  MINITF_ASSIGN_OR_RETURN(Node * node, graph->AddNode(std::move(def)));
  node->set_assigned_device_name(device);
  graph->set_output_shapes(node, shapes);
  for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
    graph->AddEdge(inputs[i].src, inputs[i].output, node, i);
  }
  for (Node* c : control) graph->AddControlEdge(c, node);
  Reconnect(graph, node, readers);
  if (p.gelu.has_value()) {
    for (Node* c : p.gelu->constants) RemoveIfUnread(graph, c);
  }
  return absl::OkStatus();
}

// A FusedBatchNormV3, the Add that alone reads its y (if any) and the Relu
// that alone reads that, all on one device.
struct BatchNormPattern {
  Node* bn = nullptr;
  Node* add = nullptr;       // May be null.
  const Edge* side = nullptr;  // The Add's other input, when there is an Add.
  Node* relu = nullptr;
};

// `n`'s output 0 is read only by `reader` (through any number of its
// inputs), and nothing waits for `n` through a control edge.
bool OnlyReaderOfY(const Node& n, const Node* reader) {
  for (const Edge* e : n.out_edges()) {
    if (e->IsControlEdge() && !e->dst()->IsSink()) return false;
    if (!e->IsControlEdge() && e->src_output() == 0 && e->dst() != reader) return false;
  }
  return true;
}

// The batch norm whose y `input` is, when it may be fused into `reader`.
Node* FusableBatchNorm(const Edge* input, const Node& reader) {
  if (input == nullptr || input->src_output() != 0) return nullptr;
  Node* bn = input->src();
  if (bn->type_string() != "FusedBatchNormV3" || !MayChange(*bn) || !SameDevice(*bn, reader) ||
      !OnlyReaderOfY(*bn, &reader)) {
    return nullptr;
  }
  return bn;
}

bool MatchBatchNormRelu(Node* relu, BatchNormPattern* p) {
  if (relu->type_string() != "Relu" || !MayChange(*relu)) return false;
  const Edge* in = DataInput(*relu, 0);
  if (in == nullptr) return false;
  *p = BatchNormPattern{};
  p->relu = relu;
  p->bn = FusableBatchNorm(in, *relu);
  if (p->bn != nullptr) return true;
  // An Add of the batch norm's y and a side input of the same shape (a
  // residual connection), which only the Relu reads.
  Node* add = in->src();
  if (in->src_output() != 0 || (add->type_string() != "Add" && add->type_string() != "AddV2") ||
      !MayChange(*add) || !SameDevice(*add, *relu) || OnlyConsumer(*add) != relu) {
    return false;
  }
  for (int i = 0; i < 2; ++i) {
    Node* bn = FusableBatchNorm(DataInput(*add, i), *add);
    const Edge* side = DataInput(*add, 1 - i);
    // The side input must not come from the batch norm (the fused node
    // would read its own output).
    if (bn == nullptr || side == nullptr ||
        !FullyDefinedAndEqual(*bn, 0, *side->src(), side->src_output()) ||
        DependsOn(side->src(), bn)) {
      continue;
    }
    p->bn = bn;
    p->add = add;
    p->side = side;
    return true;
  }
  return false;
}

NodeDef BatchNormExDef(const BatchNormPattern& p) {
  NodeDef def;
  def.name = p.relu->name();
  def.op = "_FusedBatchNormEx";
  def.device = p.relu->requested_device();
  def.attr = p.bn->def().attr;
  def.attr["num_side_inputs"] = int64_t{p.add != nullptr ? 1 : 0};
  def.attr["activation_mode"] = std::string("Relu");
  return def;
}

absl::Status FuseBatchNorm(Graph* graph, const BatchNormPattern& p) {
  Node* bn = p.bn;
  Node* relu = p.relu;
  NodeDef def = BatchNormExDef(p);
  struct Link {
    Node* node;
    int output;
    int input;
  };
  std::vector<Link> inputs, control;
  // The statistics and reserve spaces' readers, then the Relu's.
  std::vector<Reader> readers;
  for (const Reader& r : ReadersOf(*bn)) {
    if (r.output > 0) readers.push_back(r);
  }
  for (const Reader& r : ReadersOf(*relu)) readers.push_back(r);
  std::vector<Node*> fused = {bn, relu};
  if (p.add != nullptr) fused.push_back(p.add);
  for (Node* n : fused) {
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge() && e->src()->IsOp()) control.push_back({e->src(), 0, 0});
      if (n == bn && !e->IsControlEdge()) {
        inputs.push_back({e->src(), e->src_output(), e->dst_input()});
      }
    }
  }
  if (p.side != nullptr) inputs.push_back({p.side->src(), p.side->src_output(), 5});
  const std::string device = relu->assigned_device_name();
  std::vector<PartialTensorShape> shapes = bn->output_shapes();
  shapes[0] = relu->output_shapes()[0];
  graph->RemoveNode(relu);
  if (p.add != nullptr) graph->RemoveNode(p.add);
  graph->RemoveNode(bn);
  MINITF_ASSIGN_OR_RETURN(Node * node, graph->AddNode(std::move(def)));
  node->set_assigned_device_name(device);
  graph->set_output_shapes(node, shapes);
  for (const Link& in : inputs) graph->AddEdge(in.node, in.output, node, in.input);
  for (const Link& c : control) graph->AddControlEdge(c.node, node);
  Reconnect(graph, node, readers);
  return absl::OkStatus();
}

}  // namespace

bool FuseBatchNormRelu(Graph* graph, const std::function<bool(const Node*)>& consider) {
  std::vector<int> ids;
  for (const Node* n : graph->op_nodes()) ids.push_back(n->id());
  bool changed = false;
  for (int id : ids) {
    Node* relu = graph->FindNodeId(id);
    BatchNormPattern p;
    if (relu == nullptr || !MatchBatchNormRelu(relu, &p)) continue;
    if (consider && (!consider(p.bn) || !consider(relu) ||
                     (p.add != nullptr && !consider(p.add)))) {
      continue;
    }
    if (!HasKernel(BatchNormExDef(p), relu->assigned_device_name())) continue;
    if (!FuseBatchNorm(graph, p).ok()) continue;
    changed = true;
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

bool FuseContractionBiasAdd(Graph* graph, const std::function<bool(const Node*)>& consider) {
  std::vector<int> ids;
  for (const Node* n : graph->op_nodes()) ids.push_back(n->id());
  bool changed = false;
  for (int id : ids) {
    Node* n = graph->FindNodeId(id);
    Pattern p;
    if (n == nullptr || !Match(n, &p)) continue;
    if (consider && (!consider(p.contraction) || !consider(p.bias_add) ||
                     (p.activation != nullptr && !consider(p.activation)) ||
                     (p.add != nullptr && !consider(p.add)))) {
      continue;
    }
    if (consider && p.gelu.has_value() &&
        !std::all_of(p.gelu->nodes.begin(), p.gelu->nodes.end(), consider)) {
      continue;
    }
    if (!HasKernel(FusedDef(p), p.bias_add->assigned_device_name())) continue;
    if (!Fuse(graph, p).ok()) continue;
    changed = true;
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

}  // namespace minitf
