// Graph-builder functions for the neural-network ops: MatMul, BiasAdd, the
// activations, Softmax and SparseSoftmaxCrossEntropyWithLogits.
//
//   auto h = ops::Relu(root, ops::BiasAdd(root, ops::MatMul(root, x, w), b));
//   auto logits = ops::MatMul(root, h, w2, {.transpose_b = true});
//   auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
//   // xent.loss: [batch]; xent.backprop: [batch, classes]
#ifndef MINITF_OPS_CC_NN_OPS_H_
#define MINITF_OPS_CC_NN_OPS_H_

#include "runtime/scope.h"

namespace minitf::ops {

struct MatMulAttrs {
  bool transpose_a = false;
  bool transpose_b = false;
};
// product = op(a) * op(b) for matrices, op transposing where the attrs say.
Output MatMul(const Scope& scope, Input a, Input b, const MatMulAttrs& attrs = {});

// value + bias, the vector bias added along the last dimension of value.
Output BiasAdd(const Scope& scope, Input value, Input bias);

Output Relu(const Scope& scope, Input features);
// gradients where features > 0, else 0: the gradient of Relu.
Output ReluGrad(const Scope& scope, Input gradients, Input features);
Output Sigmoid(const Scope& scope, Input x);
Output Tanh(const Scope& scope, Input x);
// Softmax over the last dimension.
Output Softmax(const Scope& scope, Input logits);

struct SparseSoftmaxCrossEntropyOutputs {
  Output loss;      // [batch]
  Output backprop;  // [batch, classes]: the gradient of loss with respect to features.
};
// features: [batch, classes]; labels: [batch] int32 or int64 class indices.
SparseSoftmaxCrossEntropyOutputs SparseSoftmaxCrossEntropyWithLogits(const Scope& scope,
                                                                     Input features, Input labels);

}  // namespace minitf::ops

#endif  // MINITF_OPS_CC_NN_OPS_H_
