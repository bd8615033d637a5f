// The fill CUDA kernel (see fill_ops_gpu.h).
#include "ops/kernels/fill_ops_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

template <typename T>
__global__ void FillKernel(int64_t n, T value, T* out) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) out[i] = value;
}

}  // namespace

template <typename T>
cudaError_t LaunchFill(cudaStream_t stream, int64_t n, T value, T* out) {
  if (n == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(n);
  FillKernel<T><<<config.blocks, config.threads, 0, stream>>>(n, value, out);
  return cudaGetLastError();
}

template cudaError_t LaunchFill<float>(cudaStream_t, int64_t, float, float*);
template cudaError_t LaunchFill<double>(cudaStream_t, int64_t, double, double*);
template cudaError_t LaunchFill<int64_t>(cudaStream_t, int64_t, int64_t, int64_t*);

}  // namespace minitf::gpu
