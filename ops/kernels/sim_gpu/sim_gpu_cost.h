// The work one kernel does, as the SimGPU cost model counts it
// (docs/SIMGPU.md): floating-point operations from the op and its shapes,
// and the bytes it reads and writes, split by where they live (device memory
// at HBM bandwidth, host memory — VMem's overflow — at PCIe bandwidth).
//
//   flops: MatMul 2mnk; BatchMatMul 2bmnk (b the product of the batch
//          dimensions); Conv2D and both backprops 2 * (output or
//          out_backprop elements) * filter_rows * filter_cols * in_depth;
//          MaxPool / MaxPoolGrad one per window element (the window clipped
//          to the input: ksize is an attr a graph may make huge); Softmax and the
//          cross-entropy 5 per logit; everything else (Transpose among
//          them: its time is its bytes) one per element of its largest input
//          or output.
//   bytes: every input plus every output.
//   family: from the op's name (KernelFamilyOfOp), for the GPU profile's
//          per-family efficiency (stream/sim_gpu/sim_gpu_profile.h).
//   blocks: the thread blocks of its CUDA twin's launch, for the SM model
//          (stream/sim_gpu/sim_gpu_sm_pool.h): a 64 x 64 output tile each
//          for matrix products and convolutions (two per SM), unknown (the
//          whole GPU) for the filter gradient's split reduction, else 256
//          elements of the largest tensor each (eight per SM).
#ifndef MINITF_OPS_KERNELS_SIM_GPU_SIM_GPU_COST_H_
#define MINITF_OPS_KERNELS_SIM_GPU_SIM_GPU_COST_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "runtime/graph_def.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shape.h"
#include "stream/kernel.h"
#include "stream/stream_executor.h"

namespace minitf {

// The op family a node of op `op` belongs to: Conv2D and its two backprops
// each their own; MatMul and BatchMatMul; the cwise ops, BiasAdd, Fill, the
// optimizers' updates (elementwise); reductions and BiasAddGrad; pooling
// and its gradients; FusedBatchNorm*; Softmax and the cross-entropies;
// Assign, Transpose, Concat, Pad, Slice, Tile, Gather and the other ops
// that move elements (data movement); anything else is other.
se::KernelFamily KernelFamilyOfOp(absl::string_view op);

// `inputs` are the kernel's input tensors (null for a missing one);
// `output_shapes` what shape inference gave (unknown ones count nothing).
// `executor` tells device memory from host memory.
se::KernelCost EstimateKernelCost(const NodeDef& def, const std::vector<const Tensor*>& inputs,
                                  const std::vector<PartialTensorShape>& output_shapes,
                                  const std::vector<DataType>& output_types,
                                  const se::StreamExecutor& executor);

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_SIM_GPU_SIM_GPU_COST_H_
