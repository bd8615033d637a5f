// Launchers of the CUDA optimizer updates GradientDescent, Momentum and Adam
// (training_ops_gpu.cu) for float variables of n elements, updated in place.
// The scalars (alpha, lr, momentum, the betas, ...) are read on the device
// from the kernel's own inputs, so nothing waits for them on the host. Each
// enqueues on `stream` and returns the launch's error. The formulas are
// those of the CPU kernels (training_ops.cc).
#ifndef MINITF_OPS_KERNELS_TRAINING_OPS_GPU_H_
#define MINITF_OPS_KERNELS_TRAINING_OPS_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::gpu {

// var -= alpha * delta.
cudaError_t LaunchApplyGradientDescent(cudaStream_t stream, int64_t n, float* var,
                                       const float* alpha, const float* delta);

cudaError_t LaunchApplyMomentum(cudaStream_t stream, int64_t n, float* var, float* accum,
                                const float* lr, const float* grad, const float* momentum,
                                bool use_nesterov);

struct AdamScalars {
  const float* beta1_power;
  const float* beta2_power;
  const float* lr;
  const float* beta1;
  const float* beta2;
  const float* epsilon;
};

cudaError_t LaunchApplyAdam(cudaStream_t stream, int64_t n, float* var, float* m, float* v,
                            const AdamScalars& scalars, const float* grad, bool use_nesterov);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_TRAINING_OPS_GPU_H_
