// Grappler's remapper: a MatMul or a Conv2D whose output only a BiasAdd reads, and the activation
// (Relu, Relu6, Elu or Tanh) that alone reads the sum if there is one, or for a MatMul the GELU of
// the sum written out in elementwise ops (tf.nn.gelu, approximate or exact: gelu_pattern.h) that
// alone reads it, become one _FusedMatMul or _FusedConv2D node (ops/defs/nn_ops.cc) with the name
// of the last node fused, its device, and the control inputs of all of them. On the CPU, a MatMul's
// sum that only an Add of an addend of its shape reads (a residual connection: Grappler's oneDNN
// fusion) fuses with the Add instead, fused_ops [BiasAdd, Add]. Fused only where the device has the
// fused kernel for the type (the CPU, float and double), the BiasAdd adds along the contraction's
// channels (NHWC after a MatMul, the Conv2D's own data_format, NHWC or NCHW, after a Conv2D) and
// nothing else reads the fused nodes' outputs (a training graph's gradients read the activation's
// output, which the fused node gives, and never the product or the convolution itself).
//
//   bool changed = FuseContractionBiasAdd(graph, nullptr);
//   changed |= FuseBatchNormRelu(graph, nullptr);
#ifndef MINITF_OPTIMIZER_REMAPPER_H_
#define MINITF_OPTIMIZER_REMAPPER_H_

#include <functional>

#include "runtime/graph.h"

namespace minitf {

bool FuseContractionBiasAdd(Graph* graph, const std::function<bool(const Node*)>& consider);

// A FusedBatchNormV3 whose y only a Relu reads, or only an Add (AddV2) of
// y and a side input of y's shape (known when the graph is built) that only
// a Relu reads, becomes a _FusedBatchNormEx (activation_mode Relu, the side
// input as its input 5) with the Relu's name: its y is the Relu's output,
// its other outputs the batch norm's (which the gradient reads), where the
// device has the kernel (the CPU's; a GPU's for float, on CUDA and SimGPU).
bool FuseBatchNormRelu(Graph* graph, const std::function<bool(const Node*)>& consider);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_REMAPPER_H_
