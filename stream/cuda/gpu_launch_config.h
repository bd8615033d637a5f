// Launch geometry for the 1-D element loops of minitf's CUDA kernels, for
// .cu files: a grid sized to the work (capped; threads then stride over the
// rest) and the loop bounds each thread walks.
//
//   const LaunchConfig config = LaunchConfigFor(n);
//   ScaleKernel<<<config.blocks, config.threads, 0, stream>>>(n, x);
//   __global__ void ScaleKernel(int64_t n, float* x) {
//     for (int64_t i = FirstIndex(); i < n; i += IndexStride()) x[i] *= 2;
//   }
#ifndef MINITF_STREAM_CUDA_GPU_LAUNCH_CONFIG_H_
#define MINITF_STREAM_CUDA_GPU_LAUNCH_CONFIG_H_

#include <cstdint>

namespace minitf::se::cuda {

struct LaunchConfig {
  unsigned blocks = 1;
  unsigned threads = 256;
};

// REQUIRES: work >= 0. At least one block, at most 65535 x 16.
inline LaunchConfig LaunchConfigFor(int64_t work) {
  constexpr int64_t kThreads = 256;
  constexpr int64_t kMaxBlocks = 65535 * 16;
  int64_t blocks = (work + kThreads - 1) / kThreads;
  if (blocks < 1) blocks = 1;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  return {static_cast<unsigned>(blocks), static_cast<unsigned>(kThreads)};
}

#ifdef __CUDACC__
__device__ inline int64_t FirstIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline int64_t IndexStride() {
  return static_cast<int64_t>(blockDim.x) * gridDim.x;
}
#endif

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_GPU_LAUNCH_CONFIG_H_
