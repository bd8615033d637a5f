// The gradients of the neural-network ops: activations, softmax and the
// cross-entropy losses, BiasAdd, Conv2D and its backprops, pooling and
// fused batch norm (TensorFlow's nn_grad.py).
#include "ops/cc/array_ops.h"
#include "ops/cc/math_ops.h"
#include "ops/cc/nn_ops.h"
#include "ops/gradients/grad_helpers.h"

namespace minitf {
namespace {

using Grads = std::vector<Output>;

absl::Status BiasAddGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  std::string format = "NHWC";
  if (absl::Status st = op.GetAttr("data_format", &format); !st.ok()) return st;
  *out = {g[0], ops::BiasAddGrad(s, g[0], {.data_format = format})};
  return s.status();
}
REGISTER_GRADIENT_OP("BiasAdd", BiasAddGradFn);

// BiasAddGrad sums out_backprop over all but the channel dimension: its
// gradient broadcasts g back (channels last, or at dimension 1 for NCHW).
absl::Status BiasAddGradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  std::string format = "NHWC";
  if (absl::Status st = op.GetAttr("data_format", &format); !st.ok()) return st;
  const Output& backprop = op.input(0);
  Output channels = g[0];
  if (format == "NCHW") {
    auto trailing = ops::Fill(s, ops::Reshape(s, ops::Sub(s, ops::Rank(s, backprop), 2), {1}), 1);
    channels = ops::Reshape(s, g[0], ops::Concat(s, {ops::Const(s, {1, -1}), trailing}, 0));
  }
  *out = {ops::BroadcastTo(s, channels, ops::Shape(s, backprop))};
  return s.status();
}
REGISTER_GRADIENT_OP("BiasAddGrad", BiasAddGradGrad);

// d(sum(t ** 2) / 2)/dt = t.
absl::Status L2LossGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = {ops::Mul(s, op.input(0), g[0])};
  return s.status();
}
REGISTER_GRADIENT_OP("L2Loss", L2LossGrad);

absl::Status ReluGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::ReluGrad(s, g[0], op.output(0)));
  return s.status();
}
REGISTER_GRADIENT_OP("Relu", ReluGradFn);

absl::Status Relu6GradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Relu6Grad(s, g[0], op.input(0)));
  return s.status();
}
REGISTER_GRADIENT_OP("Relu6", Relu6GradFn);

absl::Status LeakyReluGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  float alpha = 0.2f;
  if (absl::Status st = op.GetAttr("alpha", &alpha); !st.ok()) return st;
  out->push_back(ops::LeakyReluGrad(s, g[0], op.input(0), {.alpha = alpha}));
  return s.status();
}
REGISTER_GRADIENT_OP("LeakyRelu", LeakyReluGradFn);

absl::Status EluGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::EluGrad(s, g[0], op.output(0)));
  return s.status();
}
REGISTER_GRADIENT_OP("Elu", EluGradFn);

// The activation gradients h(dy, x) = dy f'(x) with f' piecewise constant:
// linear in dy (the same op on g), flat in x.
absl::Status ReluGradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = {ops::ReluGrad(s, g[0], op.input(1)), ops::ZerosLike(s, op.input(1))};
  return s.status();
}
REGISTER_GRADIENT_OP("ReluGrad", ReluGradGrad);

absl::Status Relu6GradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = {ops::Relu6Grad(s, g[0], op.input(1)), ops::ZerosLike(s, op.input(1))};
  return s.status();
}
REGISTER_GRADIENT_OP("Relu6Grad", Relu6GradGrad);

absl::Status LeakyReluGradGrad(const Scope& s, const Operation& op, const Grads& g,
                               Grads* out) {
  float alpha = 0.2f;
  if (absl::Status st = op.GetAttr("alpha", &alpha); !st.ok()) return st;
  *out = {ops::LeakyReluGrad(s, g[0], op.input(1), {.alpha = alpha}),
          ops::ZerosLike(s, op.input(1))};
  return s.status();
}
REGISTER_GRADIENT_OP("LeakyReluGrad", LeakyReluGradGrad);

// EluGrad(dy, y) = dy where y > 0, else dy (y + 1): d/d(dy) is EluGrad of
// g, d/dy = g dy where y < 0.
absl::Status EluGradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output& dy = op.input(0);
  const Output& y = op.input(1);
  auto below = ops::Less(s, y, 0.0f);
  *out = {ops::EluGrad(s, g[0], y),
          ops::SelectV2(s, below, ops::Mul(s, g[0], dy), ops::ZerosLike(s, y))};
  return s.status();
}
REGISTER_GRADIENT_OP("EluGrad", EluGradGrad);

// Softmax z along the last dimension: dx = (g - sum(g z)) z.
Output SoftmaxBackprop(const Scope& s, const Output& z, const Output& g) {
  auto dot = ops::Sum(s, ops::Mul(s, g, z), {-1}, {.keep_dims = true});
  return ops::Mul(s, ops::Sub(s, g, dot), z);
}

absl::Status SoftmaxGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(SoftmaxBackprop(s, op.output(0), g[0]));
  return s.status();
}
REGISTER_GRADIENT_OP("Softmax", SoftmaxGrad);

// z = log softmax(x): dx = g - softmax(x) sum(g).
absl::Status LogSoftmaxGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto total = ops::Sum(s, g[0], {-1}, {.keep_dims = true});
  out->push_back(ops::Sub(s, g[0], ops::Mul(s, ops::Exp(s, op.output(0)), total)));
  return s.status();
}
REGISTER_GRADIENT_OP("LogSoftmax", LogSoftmaxGrad);

// The cross-entropy losses return the gradient of the loss with respect to
// the logits as their second output (backprop): d logits = g_loss *
// backprop, plus, when backprop itself feeds the loss, the softmax's
// Jacobian applied to its gradient.
Output LogitsGrad(const Scope& s, const Operation& op, const Grads& g) {
  Output grad = ops::Mul(s, ops::ExpandDims(s, g[0], -1), op.output(1));
  if (!grad::IsZeros(s, g[1])) {
    auto softmax = ops::Softmax(s, op.input(0));
    grad = ops::Add(s, grad, SoftmaxBackprop(s, softmax, g[1]));
  }
  return grad;
}

// The labels' gradient is -g_loss * log softmax(logits).
absl::Status SoftmaxXentGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto labels_grad = ops::Mul(s, ops::ExpandDims(s, g[0], -1),
                              ops::Neg(s, ops::LogSoftmax(s, op.input(0))));
  *out = {LogitsGrad(s, op, g), labels_grad};
  return s.status();
}
REGISTER_GRADIENT_OP("SoftmaxCrossEntropyWithLogits", SoftmaxXentGrad);

absl::Status SparseSoftmaxXentGrad(const Scope& s, const Operation& op, const Grads& g,
                                   Grads* out) {
  *out = {LogitsGrad(s, op, g), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxXentGrad);

constexpr std::initializer_list<const char*> kConvAttrs = {
    "strides", "use_cudnn_on_gpu", "padding", "explicit_paddings", "data_format", "dilations"};

Output ConvOp(const Scope& s, const char* type, const std::vector<Input>& inputs,
              const Operation& op) {
  std::vector<Output> outputs = grad::WithAttrsOf(s, type, inputs, op, kConvAttrs);
  return outputs.empty() ? Output() : outputs[0];
}

absl::Status Conv2DGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output& input = op.input(0);
  const Output& filter = op.input(1);
  *out = {ConvOp(s, "Conv2DBackpropInput", {ops::Shape(s, input), filter, g[0]}, op),
          ConvOp(s, "Conv2DBackpropFilter", {input, ops::Shape(s, filter), g[0]}, op)};
  return s.status();
}
REGISTER_GRADIENT_OP("Conv2D", Conv2DGrad);

// Conv2DBackpropInput(sizes, filter, dy) is linear in filter and in dy.
absl::Status Conv2DBackpropInputGrad(const Scope& s, const Operation& op, const Grads& g,
                                     Grads* out) {
  const Output& filter = op.input(1);
  const Output& dy = op.input(2);
  *out = {NoGradient(),
          ConvOp(s, "Conv2DBackpropFilter", {g[0], ops::Shape(s, filter), dy}, op),
          ConvOp(s, "Conv2D", {g[0], filter}, op)};
  return s.status();
}
REGISTER_GRADIENT_OP("Conv2DBackpropInput", Conv2DBackpropInputGrad);

// Conv2DBackpropFilter(input, sizes, dy) is linear in input and in dy.
absl::Status Conv2DBackpropFilterGrad(const Scope& s, const Operation& op, const Grads& g,
                                      Grads* out) {
  const Output& input = op.input(0);
  const Output& dy = op.input(2);
  *out = {ConvOp(s, "Conv2DBackpropInput", {ops::Shape(s, input), g[0], dy}, op), NoGradient(),
          ConvOp(s, "Conv2D", {input, g[0]}, op)};
  return s.status();
}
REGISTER_GRADIENT_OP("Conv2DBackpropFilter", Conv2DBackpropFilterGrad);

constexpr std::initializer_list<const char*> kPoolAttrs = {"ksize", "strides", "padding",
                                                           "explicit_paddings", "data_format"};

absl::Status MaxPoolGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = grad::WithAttrsOf(s, "MaxPoolGrad", {op.input(0), op.output(0), g[0]}, op, kPoolAttrs);
  return s.status();
}
REGISTER_GRADIENT_OP("MaxPool", MaxPoolGradFn);

absl::Status AvgPoolGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = grad::WithAttrsOf(s, "AvgPoolGrad", {ops::Shape(s, op.input(0)), g[0]}, op, kPoolAttrs);
  return s.status();
}
REGISTER_GRADIENT_OP("AvgPool", AvgPoolGradFn);

// AvgPoolGrad is linear in its gradient input: pooling g is its gradient.
absl::Status AvgPoolGradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  std::vector<Output> pooled = grad::WithAttrsOf(s, "AvgPool", {g[0]}, op, kPoolAttrs);
  *out = {NoGradient(), pooled.empty() ? Output() : pooled[0]};
  return s.status();
}
REGISTER_GRADIENT_OP("AvgPoolGrad", AvgPoolGradGrad);

// FusedBatchNorm(V3)(x, scale, offset, mean, variance): dx, dscale and
// doffset from FusedBatchNormGrad(V3). In training the reserve spaces carry
// the batch statistics; in inference the statistics are the mean and
// variance inputs, as TensorFlow passes them.
absl::Status FusedBatchNormGradFn(const Scope& s, const Operation& op, const Grads& g,
                                  Grads* out) {
  bool training = true;
  if (absl::Status st = op.GetAttr("is_training", &training); !st.ok()) return st;
  const bool v3 = op.type() == "FusedBatchNormV3";
  std::vector<Input> inputs = {g[0], op.input(0), op.input(1)};
  if (training) {
    inputs.push_back(op.output(3));
    inputs.push_back(op.output(4));
  } else {
    inputs.push_back(op.input(3));
    inputs.push_back(op.input(4));
  }
  if (v3) inputs.push_back(op.output(5));
  std::vector<Output> grads =
      grad::WithAttrsOf(s, v3 ? "FusedBatchNormGradV3" : "FusedBatchNormGrad", inputs, op,
                        {"epsilon", "data_format", "is_training"});
  if (grads.size() < 3) return s.status();
  *out = {grads[0], grads[1], grads[2], NoGradient(), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("FusedBatchNorm", FusedBatchNormGradFn);
REGISTER_GRADIENT_OP("FusedBatchNormV3", FusedBatchNormGradFn);

}  // namespace
}  // namespace minitf
