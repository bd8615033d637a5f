// The random ops' CUDA kernel (see random_ops_gpu.h): one thread per group
// of values; group g starts g * kCallsPerGroup calls after `start`, as on
// the CPU, so no thread waits for another.
#include "ops/kernels/random_ops_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

template <typename Dist, typename T>
__global__ void RandomKernel(Dist dist, PhiloxRandom start, int64_t n, int64_t groups, T* out) {
  for (int64_t g = FirstIndex(); g < groups; g += IndexStride()) {
    random::FillGroup(dist, start, n, g, out);
  }
}

}  // namespace

template <typename Dist, typename T>
cudaError_t LaunchRandom(cudaStream_t stream, const Dist& dist, PhiloxRandom start, int64_t n,
                         T* out) {
  if (n == 0) return cudaSuccess;
  const int64_t groups = (n + Dist::kGroupSize - 1) / Dist::kGroupSize;
  const LaunchConfig config = LaunchConfigFor(groups);
  RandomKernel<<<config.blocks, config.threads, 0, stream>>>(dist, start, n, groups, out);
  return cudaGetLastError();
}

#define MINITF_INSTANTIATE_LAUNCH_RANDOM(Dist, T)                                  \
  template cudaError_t LaunchRandom(cudaStream_t, const random::Dist<T>&, PhiloxRandom, \
                                    int64_t, T*)
MINITF_INSTANTIATE_LAUNCH_RANDOM(Uniform, float);
MINITF_INSTANTIATE_LAUNCH_RANDOM(Uniform, double);
MINITF_INSTANTIATE_LAUNCH_RANDOM(Normal, float);
MINITF_INSTANTIATE_LAUNCH_RANDOM(Normal, double);
MINITF_INSTANTIATE_LAUNCH_RANDOM(TruncatedNormal, float);
MINITF_INSTANTIATE_LAUNCH_RANDOM(TruncatedNormal, double);
MINITF_INSTANTIATE_LAUNCH_RANDOM(UniformInt, int64_t);
#undef MINITF_INSTANTIATE_LAUNCH_RANDOM

}  // namespace minitf::gpu
