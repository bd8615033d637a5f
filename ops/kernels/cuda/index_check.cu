// The CUDA kernel of index_check_gpu.h: every thread that sees an index out
// of range lowers the answer with atomicMin, so the least position wins
// whatever the order the threads run in.
#include "ops/kernels/cuda/index_check_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

__global__ void SetKernel(int64_t* first_bad, int64_t n) { *first_bad = n; }

template <typename Index>
__global__ void FindBadIndexKernel(const Index* indices, int64_t n, int64_t lower, int64_t limit,
                                   int64_t* first_bad) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) {
    const int64_t v = static_cast<int64_t>(indices[i]);
    if (v < lower || v >= limit) {
      // Positions are non-negative, so their unsigned order is theirs.
      atomicMin(reinterpret_cast<unsigned long long*>(first_bad),
                static_cast<unsigned long long>(i));
    }
  }
}

template <typename Index>
cudaError_t Find(cudaStream_t stream, const void* indices, int64_t n, int64_t lower, int64_t limit,
                 int64_t* first_bad) {
  SetKernel<<<1, 1, 0, stream>>>(first_bad, n);
  if (n == 0) return cudaGetLastError();
  const LaunchConfig config = LaunchConfigFor(n);
  FindBadIndexKernel<Index><<<config.blocks, config.threads, 0, stream>>>(
      static_cast<const Index*>(indices), n, lower, limit, first_bad);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchFindBadIndex(cudaStream_t stream, const void* indices, bool is_int64, int64_t n,
                               int64_t lower, int64_t limit, int64_t* first_bad) {
  return is_int64 ? Find<int64_t>(stream, indices, n, lower, limit, first_bad)
                  : Find<int32_t>(stream, indices, n, lower, limit, first_bad);
}

}  // namespace minitf::gpu
