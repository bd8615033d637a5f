// Launcher of the CUDA kernel (l2loss_op_gpu.cu) behind L2Loss. Plain types
// only; enqueues on `stream` and returns the launch's error.
//
//   LaunchL2Loss(stream, t, n, output);
#ifndef MINITF_OPS_KERNELS_L2LOSS_OP_GPU_H_
#define MINITF_OPS_KERNELS_L2LOSS_OP_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::gpu {

// *output = sum over i < n of t[i] * t[i], halved, added in double.
cudaError_t LaunchL2Loss(cudaStream_t stream, const float* t, int64_t n, float* output);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_L2LOSS_OP_GPU_H_
