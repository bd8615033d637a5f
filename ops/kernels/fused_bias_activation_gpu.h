// Launcher of the CUDA kernel (fused_bias_activation_gpu.cu) that the CUDA
// _FusedMatMul and _FusedConv2D run after their contraction: output =
// act(output + bias), the bias along the last dimension, in place, in one
// pass. Plain types only; enqueues on `stream` and returns the launch's
// error.
//
//   LaunchBiasActivation(stream, FusedActivation::kRelu, bias, rows, channels, out);
#ifndef MINITF_OPS_KERNELS_FUSED_BIAS_ACTIVATION_GPU_H_
#define MINITF_OPS_KERNELS_FUSED_BIAS_ACTIVATION_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/kernels/fused_activation.h"

namespace minitf::gpu {

// output[r, c] = act(output[r, c] + bias[c]) for r < rows, c < channels.
cudaError_t LaunchBiasActivation(cudaStream_t stream, FusedActivation activation,
                                 const float* bias, int64_t rows, int64_t channels,
                                 float* output);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_FUSED_BIAS_ACTIVATION_GPU_H_
