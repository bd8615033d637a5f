// Grappler's layout optimizer, turned to minitf's GPUs. Their convolution,
// pooling, bias and batch norm kernels compute in NHWC: a CUDA one given an
// NCHW tensor transposes it to NHWC for cuDNN and its result back, inside
// the kernel, every time (ops/kernels/image_layout.h), and SimGPU keeps
// CUDA's kernel set. So the nodes on a GPU with data_format NCHW become
// NHWC nodes (their strides, ksize, dilations and explicit_paddings
// reordered, a Const shape input such as Conv2DBackpropInput's input_sizes
// replaced by the reordered one), each 4-D data input read through a
// Transpose to NHWC and each 4-D data output given back through a Transpose
// to NCHW; the elementwise nodes between converted ones (a Relu, a
// residual AddV2 of two 4-D tensors, an AddN of gradients, a ReluGrad,
// a product by a scalar) follow, and so do a Pad with Const paddings, a
// Slice with Const begin and size (a Pad's gradient) and a reduction with
// Const axes, their Consts reordered (Grappler's Pad, Slice and Reduce
// transposers); a reduction without keep_dims gives its output as it is
// where it leaves the same dimensions in the same order in both layouts
// (the mean over height and width: [N, C]). Where a converted
// node reads another, the Transposes meet and cancel (the arithmetic
// optimizer, arithmetic_optimizer.h), so a chain transposes once at each
// end, as Grappler's NHWC-to-NCHW conversion does in the other direction.
//
// Left alone: nodes on the CPU (whose kernels take either layout), those a
// pass may not change (node_rules.h), those whose image inputs are not
// known to be 4-D (a wrong rank fails as without the pass) or whose shape
// inputs are not Consts, and those for which the GPU has no NHWC kernel.
//
//   bool changed = ConvertNchwToNhwcOnGpu(graph, nullptr);
#ifndef MINITF_OPTIMIZER_LAYOUT_OPTIMIZER_H_
#define MINITF_OPTIMIZER_LAYOUT_OPTIMIZER_H_

#include <functional>

#include "runtime/graph.h"

namespace minitf {

bool ConvertNchwToNhwcOnGpu(Graph* graph, const std::function<bool(const Node*)>& consider);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_LAYOUT_OPTIMIZER_H_
