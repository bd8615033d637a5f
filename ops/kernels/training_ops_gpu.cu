// CUDA kernels of the GradientDescent, Momentum and Adam updates (see training_ops_gpu.h).
#include "ops/kernels/training_ops_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

__global__ void GradientDescentKernel(int64_t n, float* var, const float* alpha_in,
                                      const float* delta) {
  const float alpha = *alpha_in;
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) var[i] -= delta[i] * alpha;
}

__global__ void MomentumKernel(int64_t n, float* var, float* accum, const float* lr_in,
                               const float* grad, const float* momentum_in, bool use_nesterov) {
  const float lr = *lr_in;
  const float momentum = *momentum_in;
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) {
    accum[i] = accum[i] * momentum + grad[i];
    if (use_nesterov) {
      var[i] -= grad[i] * lr + accum[i] * momentum * lr;
    } else {
      var[i] -= accum[i] * lr;
    }
  }
}

__global__ void AdamKernel(int64_t n, float* var, float* m, float* v, AdamScalars s,
                           const float* grad, bool use_nesterov) {
  const float beta1 = *s.beta1, beta2 = *s.beta2, epsilon = *s.epsilon;
  const float lr_t = *s.lr * sqrtf(1.0f - *s.beta2_power) / (1.0f - *s.beta1_power);
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) {
    const float g = grad[i];
    m[i] += (g - m[i]) * (1.0f - beta1);
    v[i] += (g * g - v[i]) * (1.0f - beta2);
    const float step = use_nesterov ? (g * (1.0f - beta1) + m[i] * beta1) : m[i];
    var[i] -= (step * lr_t) / (sqrtf(v[i]) + epsilon);
  }
}

}  // namespace

cudaError_t LaunchApplyGradientDescent(cudaStream_t stream, int64_t n, float* var,
                                       const float* alpha, const float* delta) {
  if (n == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(n);
  GradientDescentKernel<<<config.blocks, config.threads, 0, stream>>>(n, var, alpha, delta);
  return cudaGetLastError();
}

cudaError_t LaunchApplyMomentum(cudaStream_t stream, int64_t n, float* var, float* accum,
                                const float* lr, const float* grad, const float* momentum,
                                bool use_nesterov) {
  if (n == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(n);
  MomentumKernel<<<config.blocks, config.threads, 0, stream>>>(n, var, accum, lr, grad, momentum,
                                                               use_nesterov);
  return cudaGetLastError();
}

cudaError_t LaunchApplyAdam(cudaStream_t stream, int64_t n, float* var, float* m, float* v,
                            const AdamScalars& scalars, const float* grad, bool use_nesterov) {
  if (n == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(n);
  AdamKernel<<<config.blocks, config.threads, 0, stream>>>(n, var, m, v, scalars, grad,
                                                           use_nesterov);
  return cudaGetLastError();
}

}  // namespace minitf::gpu
