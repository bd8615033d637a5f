// The CUDA kernel of ScatterAdd (scatter_add_gpu.h): one thread per element
// of the updates (a grid-stride loop) adds it to its row of the variable
// with atomicAdd.
#include "ops/kernels/scatter_add_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

template <typename Index>
__global__ void ScatterAddKernel(float* var, int64_t row_size, const Index* indices, int64_t count,
                                 const float* updates, bool scalar_update) {
  for (int64_t i = FirstIndex(); i < count; i += IndexStride()) {
    const int64_t row = static_cast<int64_t>(indices[i / row_size]);
    atomicAdd(var + row * row_size + i % row_size, scalar_update ? *updates : updates[i]);
  }
}

}  // namespace

cudaError_t LaunchScatterAdd(cudaStream_t stream, float* var, int64_t row_size, const void* indices,
                             bool indices_int64, int64_t num_indices, const float* updates,
                             bool scalar_update) {
  const int64_t count = num_indices * row_size;
  if (count == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(count);
  if (indices_int64) {
    ScatterAddKernel<int64_t><<<config.blocks, config.threads, 0, stream>>>(
        var, row_size, static_cast<const int64_t*>(indices), count, updates, scalar_update);
  } else {
    ScatterAddKernel<int32_t><<<config.blocks, config.threads, 0, stream>>>(
        var, row_size, static_cast<const int32_t*>(indices), count, updates, scalar_update);
  }
  return cudaGetLastError();
}

}  // namespace minitf::gpu
