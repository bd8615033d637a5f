// The Cast CUDA kernel (see cast_op_gpu.h): one instantiation per ordered
// pair of types.
#include "ops/kernels/cast_op_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

template <typename Src, typename Dst>
__global__ void CastKernel(int64_t n, const Src* x, Dst* y) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) y[i] = static_cast<Dst>(x[i]);
}

template <typename Src, typename Dst>
cudaError_t Launch(cudaStream_t stream, int64_t n, const void* x, void* y) {
  const LaunchConfig config = LaunchConfigFor(n);
  CastKernel<Src, Dst><<<config.blocks, config.threads, 0, stream>>>(
      n, static_cast<const Src*>(x), static_cast<Dst*>(y));
  return cudaGetLastError();
}

template <typename Src>
cudaError_t LaunchFrom(cudaStream_t stream, CastType dst, int64_t n, const void* x, void* y) {
  switch (dst) {
    case CastType::kFloat: return Launch<Src, float>(stream, n, x, y);
    case CastType::kDouble: return Launch<Src, double>(stream, n, x, y);
    case CastType::kInt64: return Launch<Src, int64_t>(stream, n, x, y);
    case CastType::kBool: return Launch<Src, bool>(stream, n, x, y);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchCast(cudaStream_t stream, CastType src, CastType dst, int64_t n, const void* x,
                       void* y) {
  if (n == 0) return cudaSuccess;
  switch (src) {
    case CastType::kFloat: return LaunchFrom<float>(stream, dst, n, x, y);
    case CastType::kDouble: return LaunchFrom<double>(stream, dst, n, x, y);
    case CastType::kInt64: return LaunchFrom<int64_t>(stream, dst, n, x, y);
    case CastType::kBool: return LaunchFrom<bool>(stream, dst, n, x, y);
  }
  return cudaErrorInvalidValue;
}

}  // namespace minitf::gpu
