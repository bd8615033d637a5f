// The CUDA kernel of the fused kernels' bias and activation (see
// fused_bias_activation_gpu.h): a thread per element, the activation a
// template parameter. The activations are those of the CPU pass
// (fused_bias_activation.cc): Relu and Relu6 keep NaN as std::max does, Elu
// is exp(x) - 1 below zero, the GELUs tf.nn.gelu's (fused_activation.h).
#include "ops/kernels/fused_bias_activation_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

template <FusedActivation A>
__device__ float Activate(float x) {
  if constexpr (A == FusedActivation::kRelu) {
    return x < 0.0f ? 0.0f : x;
  } else if constexpr (A == FusedActivation::kRelu6) {
    return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
  } else if constexpr (A == FusedActivation::kElu) {
    return x < 0.0f ? expf(x) - 1.0f : x;
  } else if constexpr (A == FusedActivation::kTanh) {
    return tanhf(x);
  } else if constexpr (A == FusedActivation::kGeluApproximate) {
    constexpr float k = static_cast<float>(kGeluSqrtTwoOverPi);
    constexpr float c = static_cast<float>(kGeluCubeCoefficient);
    return 0.5f * x * (1.0f + tanhf(k * (x + c * x * (x * x))));
  } else if constexpr (A == FusedActivation::kGeluExact) {
    return 0.5f * x * erfcf(-x * static_cast<float>(kGeluSqrtOneHalf));
  } else {
    return x;
  }
}

template <FusedActivation A>
__global__ void BiasActivationKernel(int64_t n, int64_t channels, const float* bias,
                                     float* output) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) {
    output[i] = Activate<A>(output[i] + bias[i % channels]);
  }
}

template <FusedActivation A>
cudaError_t Launch(cudaStream_t stream, int64_t n, int64_t channels, const float* bias,
                   float* output) {
  const LaunchConfig config = LaunchConfigFor(n);
  BiasActivationKernel<A><<<config.blocks, config.threads, 0, stream>>>(n, channels, bias,
                                                                        output);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchBiasActivation(cudaStream_t stream, FusedActivation activation,
                                 const float* bias, int64_t rows, int64_t channels,
                                 float* output) {
  const int64_t n = rows * channels;
  if (n == 0) return cudaSuccess;
  switch (activation) {
    case FusedActivation::kNone:
      return Launch<FusedActivation::kNone>(stream, n, channels, bias, output);
    case FusedActivation::kRelu:
      return Launch<FusedActivation::kRelu>(stream, n, channels, bias, output);
    case FusedActivation::kRelu6:
      return Launch<FusedActivation::kRelu6>(stream, n, channels, bias, output);
    case FusedActivation::kElu:
      return Launch<FusedActivation::kElu>(stream, n, channels, bias, output);
    case FusedActivation::kTanh:
      return Launch<FusedActivation::kTanh>(stream, n, channels, bias, output);
    case FusedActivation::kGeluApproximate:
      return Launch<FusedActivation::kGeluApproximate>(stream, n, channels, bias, output);
    case FusedActivation::kGeluExact:
      return Launch<FusedActivation::kGeluExact>(stream, n, channels, bias, output);
  }
  return cudaErrorInvalidValue;
}

}  // namespace minitf::gpu
