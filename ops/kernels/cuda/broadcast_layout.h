// BroadcastLayoutOf: the layout the element-wise CUDA kernels
// (cwise_ops_gpu.h) take for two operands BCast has merged: the result's
// dimensions, and each operand's row-major strides with 0 where it is
// stretched.
//
//   gpu::LaunchBinaryOp(stream, kind, BroadcastLayoutOf(bcast), x, y, z);
#ifndef MINITF_OPS_KERNELS_CUDA_BROADCAST_LAYOUT_H_
#define MINITF_OPS_KERNELS_CUDA_BROADCAST_LAYOUT_H_

#include "ops/kernels/cwise_ops_gpu.h"
#include "ops/util/bcast.h"

namespace minitf {

// REQUIRES: bcast.rank() <= gpu::kMaxBroadcastRank.
gpu::BroadcastLayout BroadcastLayoutOf(const BCast& bcast);

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_CUDA_BROADCAST_LAYOUT_H_
