// Launcher of the Transpose CUDA kernel (transpose_op_gpu.cu). Plain types
// only, so the .cu file stays free of minitf's heavier headers. The kernel
// moves elements without looking at them, so one launch per element size
// serves every dtype.
//
//   TransposeLayout layout = MakeTransposeLayout(rank, dims, perm);  // not a copy
//   cudaError_t e = LaunchTranspose(stream, sizeof(float), layout, x, y);
#ifndef MINITF_OPS_KERNELS_TRANSPOSE_OP_GPU_H_
#define MINITF_OPS_KERNELS_TRANSPOSE_OP_GPU_H_

#include <cuda_runtime_api.h>

#include <cstddef>

#include "ops/kernels/cuda/transpose_layout.h"

namespace minitf::gpu {

// y[index] = x[offset(index)] as `layout` says, for elements of
// `element_size` bytes (1, 2, 4, 8 or 16; otherwise cudaErrorInvalidValue).
// Enqueues on `stream` and returns the launch's error.
// REQUIRES: y does not overlap x.
cudaError_t LaunchTranspose(cudaStream_t stream, size_t element_size,
                            const TransposeLayout& layout, const void* x, void* y);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_TRANSPOSE_OP_GPU_H_
