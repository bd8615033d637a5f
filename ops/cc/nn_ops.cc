#include "ops/cc/nn_ops.h"

#include <utility>
#include <vector>

namespace minitf::ops {

Output MatMul(const Scope& scope, Input a, Input b, const MatMulAttrs& attrs) {
  return OpBuilder(scope, "MatMul")
      .Input(a)
      .Input(b)
      .Attr("transpose_a", attrs.transpose_a)
      .Attr("transpose_b", attrs.transpose_b)
      .Finalize1();
}

Output BiasAdd(const Scope& scope, Input value, Input bias, const BiasAddAttrs& attrs) {
  return OpBuilder(scope, "BiasAdd")
      .Input(value)
      .Input(bias)
      .Attr("data_format", attrs.data_format)
      .Finalize1();
}

Output BiasAddGrad(const Scope& scope, Input out_backprop, const BiasAddGradAttrs& attrs) {
  return OpBuilder(scope, "BiasAddGrad")
      .Input(out_backprop)
      .Attr("data_format", attrs.data_format)
      .Finalize1();
}

Output L2Loss(const Scope& scope, Input t) {
  return OpBuilder(scope, "L2Loss").Input(t).Finalize1();
}

Output Relu(const Scope& scope, Input features) {
  return OpBuilder(scope, "Relu").Input(features).Finalize1();
}

Output ReluGrad(const Scope& scope, Input gradients, Input features) {
  return OpBuilder(scope, "ReluGrad").Input(gradients).Input(features).Finalize1();
}

Output Sigmoid(const Scope& scope, Input x) {
  return OpBuilder(scope, "Sigmoid").Input(x).Finalize1();
}

Output Tanh(const Scope& scope, Input x) { return OpBuilder(scope, "Tanh").Input(x).Finalize1(); }

Output Relu6(const Scope& scope, Input features) {
  return OpBuilder(scope, "Relu6").Input(features).Finalize1();
}

Output Relu6Grad(const Scope& scope, Input gradients, Input features) {
  return OpBuilder(scope, "Relu6Grad").Input(gradients).Input(features).Finalize1();
}

Output LeakyRelu(const Scope& scope, Input features, const LeakyReluAttrs& attrs) {
  return OpBuilder(scope, "LeakyRelu").Input(features).Attr("alpha", attrs.alpha).Finalize1();
}

Output LeakyReluGrad(const Scope& scope, Input gradients, Input features,
                     const LeakyReluAttrs& attrs) {
  return OpBuilder(scope, "LeakyReluGrad")
      .Input(gradients)
      .Input(features)
      .Attr("alpha", attrs.alpha)
      .Finalize1();
}

Output Elu(const Scope& scope, Input features) {
  return OpBuilder(scope, "Elu").Input(features).Finalize1();
}

Output EluGrad(const Scope& scope, Input gradients, Input outputs) {
  return OpBuilder(scope, "EluGrad").Input(gradients).Input(outputs).Finalize1();
}

Output Softmax(const Scope& scope, Input logits) {
  return OpBuilder(scope, "Softmax").Input(logits).Finalize1();
}

Output LogSoftmax(const Scope& scope, Input logits) {
  return OpBuilder(scope, "LogSoftmax").Input(logits).Finalize1();
}

SoftmaxCrossEntropyOutputs SoftmaxCrossEntropyWithLogits(const Scope& scope, Input features,
                                                         Input labels) {
  std::vector<Output> outputs =
      OpBuilder(scope, "SoftmaxCrossEntropyWithLogits").Input(features).Input(labels).Finalize();
  if (outputs.size() != 2) return {};
  return {outputs[0], outputs[1]};
}

SparseSoftmaxCrossEntropyOutputs SparseSoftmaxCrossEntropyWithLogits(const Scope& scope,
                                                                     Input features, Input labels) {
  std::vector<Output> outputs = OpBuilder(scope, "SparseSoftmaxCrossEntropyWithLogits")
                                    .Input(features)
                                    .Input(labels)
                                    .Finalize();
  if (outputs.size() != 2) return {};
  return {outputs[0], outputs[1]};
}

namespace {

OpBuilder& AddConv2DAttrs(OpBuilder& builder, const Conv2DAttrs& attrs) {
  return builder.Attr("strides", attrs.strides)
      .Attr("padding", attrs.padding)
      .Attr("data_format", attrs.data_format)
      .Attr("dilations", attrs.dilations);
}

OpBuilder& AddMaxPoolAttrs(OpBuilder& builder, const MaxPoolAttrs& attrs) {
  return builder.Attr("ksize", attrs.ksize)
      .Attr("strides", attrs.strides)
      .Attr("padding", attrs.padding)
      .Attr("data_format", attrs.data_format);
}

}  // namespace

Output Conv2D(const Scope& scope, Input input, Input filter, const Conv2DAttrs& attrs) {
  OpBuilder builder(scope, "Conv2D");
  builder.Input(input).Input(filter);
  return AddConv2DAttrs(builder, attrs).Finalize1();
}

Output Conv2DBackpropInput(const Scope& scope, Input input_sizes, Input filter,
                           Input out_backprop, const Conv2DAttrs& attrs) {
  OpBuilder builder(scope, "Conv2DBackpropInput");
  builder.Input(input_sizes).Input(filter).Input(out_backprop);
  return AddConv2DAttrs(builder, attrs).Finalize1();
}

Output Conv2DBackpropFilter(const Scope& scope, Input input, Input filter_sizes,
                            Input out_backprop, const Conv2DAttrs& attrs) {
  OpBuilder builder(scope, "Conv2DBackpropFilter");
  builder.Input(input).Input(filter_sizes).Input(out_backprop);
  return AddConv2DAttrs(builder, attrs).Finalize1();
}

Output MaxPool(const Scope& scope, Input input, const MaxPoolAttrs& attrs) {
  OpBuilder builder(scope, "MaxPool");
  builder.Input(input);
  return AddMaxPoolAttrs(builder, attrs).Finalize1();
}

Output MaxPoolGrad(const Scope& scope, Input orig_input, Input orig_output, Input grad,
                   const MaxPoolAttrs& attrs) {
  OpBuilder builder(scope, "MaxPoolGrad");
  builder.Input(orig_input).Input(orig_output).Input(grad);
  return AddMaxPoolAttrs(builder, attrs).Finalize1();
}

Output AvgPool(const Scope& scope, Input value, const AvgPoolAttrs& attrs) {
  OpBuilder builder(scope, "AvgPool");
  builder.Input(value);
  return AddMaxPoolAttrs(builder, attrs).Finalize1();
}

Output AvgPoolGrad(const Scope& scope, Input orig_input_shape, Input grad,
                   const AvgPoolAttrs& attrs) {
  OpBuilder builder(scope, "AvgPoolGrad");
  builder.Input(orig_input_shape).Input(grad);
  return AddMaxPoolAttrs(builder, attrs).Finalize1();
}

namespace {

FusedBatchNormOutputs BuildFusedBatchNorm(const Scope& scope, const char* op, Input x,
                                          Input scale, Input offset, Input mean, Input variance,
                                          const FusedBatchNormAttrs& attrs) {
  std::vector<Output> outputs = OpBuilder(scope, op)
                                    .Input(x)
                                    .Input(scale)
                                    .Input(offset)
                                    .Input(mean)
                                    .Input(variance)
                                    .Attr("epsilon", attrs.epsilon)
                                    .Attr("exponential_avg_factor", attrs.exponential_avg_factor)
                                    .Attr("data_format", attrs.data_format)
                                    .Attr("is_training", attrs.is_training)
                                    .Finalize();
  if (outputs.size() < 5) return {};
  FusedBatchNormOutputs out{outputs[0], outputs[1], outputs[2], outputs[3], outputs[4], {}};
  if (outputs.size() > 5) out.reserve_space_3 = outputs[5];
  return out;
}

FusedBatchNormGradOutputs BuildFusedBatchNormGrad(const Scope& scope, const char* op,
                                                  std::vector<Input> inputs,
                                                  const FusedBatchNormGradAttrs& attrs) {
  OpBuilder builder(scope, op);
  for (Input& input : inputs) builder.Input(std::move(input));
  std::vector<Output> outputs = builder.Attr("epsilon", attrs.epsilon)
                                    .Attr("data_format", attrs.data_format)
                                    .Attr("is_training", attrs.is_training)
                                    .Finalize();
  if (outputs.size() < 3) return {};
  return {outputs[0], outputs[1], outputs[2]};
}

}  // namespace

FusedBatchNormOutputs FusedBatchNormV3(const Scope& scope, Input x, Input scale, Input offset,
                                       Input mean, Input variance,
                                       const FusedBatchNormAttrs& attrs) {
  return BuildFusedBatchNorm(scope, "FusedBatchNormV3", std::move(x), std::move(scale),
                             std::move(offset), std::move(mean), std::move(variance), attrs);
}

FusedBatchNormOutputs FusedBatchNorm(const Scope& scope, Input x, Input scale, Input offset,
                                     Input mean, Input variance,
                                     const FusedBatchNormAttrs& attrs) {
  return BuildFusedBatchNorm(scope, "FusedBatchNorm", std::move(x), std::move(scale),
                             std::move(offset), std::move(mean), std::move(variance), attrs);
}

FusedBatchNormGradOutputs FusedBatchNormGradV3(const Scope& scope, Input y_backprop, Input x,
                                               Input scale, Input reserve_space_1,
                                               Input reserve_space_2, Input reserve_space_3,
                                               const FusedBatchNormGradAttrs& attrs) {
  std::vector<Input> inputs;
  for (Input* in : {&y_backprop, &x, &scale, &reserve_space_1, &reserve_space_2,
                    &reserve_space_3}) {
    inputs.push_back(std::move(*in));
  }
  return BuildFusedBatchNormGrad(scope, "FusedBatchNormGradV3", std::move(inputs), attrs);
}

FusedBatchNormGradOutputs FusedBatchNormGrad(const Scope& scope, Input y_backprop, Input x,
                                             Input scale, Input reserve_space_1,
                                             Input reserve_space_2,
                                             const FusedBatchNormGradAttrs& attrs) {
  std::vector<Input> inputs;
  for (Input* in : {&y_backprop, &x, &scale, &reserve_space_1, &reserve_space_2}) {
    inputs.push_back(std::move(*in));
  }
  return BuildFusedBatchNormGrad(scope, "FusedBatchNormGrad", std::move(inputs), attrs);
}

}  // namespace minitf::ops
