// Graph-builder functions for the neural-network ops: MatMul, BiasAdd,
// BiasAddGrad, L2Loss, the activations and their gradients, Softmax, LogSoftmax,
// SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits, the
// NHWC image ops Conv2D, MaxPool, AvgPool and their gradients, and fused
// batch normalization (FusedBatchNorm, FusedBatchNormV3 and their gradients).
//
//   auto h = ops::Relu(root, ops::BiasAdd(root, ops::MatMul(root, x, w), b));
//   auto logits = ops::MatMul(root, h, w2, {.transpose_b = true});
//   auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
//   // xent.loss: [batch]; xent.backprop: [batch, classes]
//
//   auto conv = ops::Conv2D(root, images, filter, {.strides = {1, 1, 1, 1}, .padding = "SAME"});
//   auto pool = ops::MaxPool(root, ops::Relu(root, conv),
//                            {.ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}, .padding = "VALID"});
#ifndef MINITF_OPS_CC_NN_OPS_H_
#define MINITF_OPS_CC_NN_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ops/cc/scope.h"

namespace minitf::ops {

struct MatMulAttrs {
  bool transpose_a = false;
  bool transpose_b = false;
};
// product = op(a) * op(b) for matrices, op transposing where the attrs say.
Output MatMul(const Scope& scope, Input a, Input b, const MatMulAttrs& attrs = {});

struct BiasAddAttrs {
  // "NHWC" (channels last) or "NCHW" (channels at dimension 1).
  std::string data_format = "NHWC";
};
using BiasAddGradAttrs = BiasAddAttrs;
// value + bias, the vector bias added along value's channel dimension.
Output BiasAdd(const Scope& scope, Input value, Input bias, const BiasAddAttrs& attrs = {});

// The gradient of BiasAdd's bias: out_backprop summed over every dimension
// but the channel one.
Output BiasAddGrad(const Scope& scope, Input out_backprop, const BiasAddGradAttrs& attrs = {});

// sum(t ** 2) / 2, a scalar; float or double.
Output L2Loss(const Scope& scope, Input t);

Output Relu(const Scope& scope, Input features);
// gradients where features > 0, else 0: the gradient of Relu.
Output ReluGrad(const Scope& scope, Input gradients, Input features);
Output Sigmoid(const Scope& scope, Input x);
Output Tanh(const Scope& scope, Input x);
// min(max(features, 0), 6), and its gradient: gradients where 0 < features < 6.
Output Relu6(const Scope& scope, Input features);
Output Relu6Grad(const Scope& scope, Input gradients, Input features);

struct LeakyReluAttrs {
  float alpha = 0.2f;  // The slope below 0.
};
// features where features > 0, else alpha * features; float or double.
Output LeakyRelu(const Scope& scope, Input features, const LeakyReluAttrs& attrs = {});
Output LeakyReluGrad(const Scope& scope, Input gradients, Input features,
                     const LeakyReluAttrs& attrs = {});
// features where features >= 0, else exp(features) - 1; float or double.
Output Elu(const Scope& scope, Input features);
// The gradient of Elu from its outputs: gradients * (outputs + 1) where
// outputs < 0, else gradients.
Output EluGrad(const Scope& scope, Input gradients, Input outputs);

// Softmax and its logarithm over the last dimension.
Output Softmax(const Scope& scope, Input logits);
Output LogSoftmax(const Scope& scope, Input logits);

struct SoftmaxCrossEntropyOutputs {
  Output loss;      // [batch]
  Output backprop;  // [batch, classes]: the gradient of loss with respect to features.
};
// features and labels (one distribution per row) broadcast to [batch, classes].
SoftmaxCrossEntropyOutputs SoftmaxCrossEntropyWithLogits(const Scope& scope, Input features,
                                                         Input labels);

struct SparseSoftmaxCrossEntropyOutputs {
  Output loss;      // [batch]
  Output backprop;  // [batch, classes]: the gradient of loss with respect to features.
};
// features: [batch, classes]; labels: [batch] int32 or int64 class indices.
SparseSoftmaxCrossEntropyOutputs SparseSoftmaxCrossEntropyWithLogits(const Scope& scope,
                                                                     Input features, Input labels);

// The attrs of Conv2D and its gradients. Lists are NHWC; the batch and depth
// entries must be 1.
struct Conv2DAttrs {
  std::vector<int64_t> strides = {1, 1, 1, 1};
  // "SAME" or "VALID"; there is no default.
  std::string padding;
  // "NHWC" or "NCHW" (images [batch, depth, rows, cols]; strides and
  // dilations in that order too).
  std::string data_format = "NHWC";
  std::vector<int64_t> dilations = {1, 1, 1, 1};
};
// input: [batch, rows, cols, in_depth]; filter: [rows, cols, in_depth, out_depth];
// output: [batch, out_rows, out_cols, out_depth] (the images NCHW under NCHW).
Output Conv2D(const Scope& scope, Input input, Input filter, const Conv2DAttrs& attrs);
// The gradient of Conv2D with respect to its input; input_sizes: the int32
// vector of the input's shape.
Output Conv2DBackpropInput(const Scope& scope, Input input_sizes, Input filter, Input out_backprop,
                           const Conv2DAttrs& attrs);
// The gradient of Conv2D with respect to its filter; filter_sizes: the int32
// vector of the filter's shape.
Output Conv2DBackpropFilter(const Scope& scope, Input input, Input filter_sizes, Input out_backprop,
                            const Conv2DAttrs& attrs);

// The attrs of MaxPool and MaxPoolGrad. Lists are NHWC; the batch and depth
// entries must be 1.
struct MaxPoolAttrs {
  std::vector<int64_t> ksize;    // The window, e.g. {1, 2, 2, 1}; no default.
  std::vector<int64_t> strides;  // No default.
  // "SAME" or "VALID"; there is no default.
  std::string padding;
  // "NHWC" or "NCHW" (ksize and strides in that order too).
  std::string data_format = "NHWC";
};
// The maximum of each window, per channel: [batch, out_rows, out_cols, depth].
Output MaxPool(const Scope& scope, Input input, const MaxPoolAttrs& attrs);
// The gradient of MaxPool with respect to orig_input: each window's gradient
// goes to the first maximum of the window.
Output MaxPoolGrad(const Scope& scope, Input orig_input, Input orig_output, Input grad,
                   const MaxPoolAttrs& attrs);

// AvgPool and AvgPoolGrad take MaxPool's attrs.
using AvgPoolAttrs = MaxPoolAttrs;
// The mean of each window, per channel, over the input elements it covers:
// [batch, out_rows, out_cols, depth].
Output AvgPool(const Scope& scope, Input value, const AvgPoolAttrs& attrs);
// The gradient of AvgPool with respect to its input, whose shape the int32
// vector orig_input_shape holds.
Output AvgPoolGrad(const Scope& scope, Input orig_input_shape, Input grad,
                   const AvgPoolAttrs& attrs);

struct FusedBatchNormAttrs {
  float epsilon = 0.0001f;
  // 1: batch_mean / batch_variance are the batch's statistics; else the
  // running averages (1 - f) * mean + f * batch statistic (training only).
  float exponential_avg_factor = 1.0f;
  std::string data_format = "NHWC";  // Or "NCHW".
  bool is_training = true;
};
struct FusedBatchNormOutputs {
  Output y;
  Output batch_mean;
  Output batch_variance;  // Bessel-corrected in training.
  Output reserve_space_1;  // The batch mean, for the gradient.
  Output reserve_space_2;  // The biased batch variance, for the gradient.
  Output reserve_space_3;  // V3 only.
};
// x: [N, H, W, C] (or NCHW); scale, offset, mean, variance: [C]. In training
// with exponential_avg_factor 1, mean and variance are not read (pass empty
// vectors, as TensorFlow does).
FusedBatchNormOutputs FusedBatchNormV3(const Scope& scope, Input x, Input scale, Input offset,
                                       Input mean, Input variance,
                                       const FusedBatchNormAttrs& attrs = {});
// The v1 op: five outputs (no reserve_space_3).
FusedBatchNormOutputs FusedBatchNorm(const Scope& scope, Input x, Input scale, Input offset,
                                     Input mean, Input variance,
                                     const FusedBatchNormAttrs& attrs = {});

struct FusedBatchNormGradAttrs {
  float epsilon = 0.0001f;
  std::string data_format = "NHWC";
  bool is_training = true;
};
struct FusedBatchNormGradOutputs {
  Output x_backprop;
  Output scale_backprop;
  Output offset_backprop;
};
// The gradients of FusedBatchNormV3 given y_backprop = d(loss)/d(y) and the
// forward op's reserve spaces.
FusedBatchNormGradOutputs FusedBatchNormGradV3(const Scope& scope, Input y_backprop, Input x,
                                               Input scale, Input reserve_space_1,
                                               Input reserve_space_2, Input reserve_space_3,
                                               const FusedBatchNormGradAttrs& attrs = {});
// The gradients of the v1 FusedBatchNorm.
FusedBatchNormGradOutputs FusedBatchNormGrad(const Scope& scope, Input y_backprop, Input x,
                                             Input scale, Input reserve_space_1,
                                             Input reserve_space_2,
                                             const FusedBatchNormGradAttrs& attrs = {});

}  // namespace minitf::ops

#endif  // MINITF_OPS_CC_NN_OPS_H_
