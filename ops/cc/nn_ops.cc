#include "ops/cc/nn_ops.h"

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

Output BiasAdd(const Scope& scope, Input value, Input bias) {
  return OpBuilder(scope, "BiasAdd").Input(value).Input(bias).Finalize1();
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

Output Softmax(const Scope& scope, Input logits) {
  return OpBuilder(scope, "Softmax").Input(logits).Finalize1();
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

}  // namespace minitf::ops
