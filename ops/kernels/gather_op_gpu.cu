// The CUDA kernel of GatherV2 (gather_op_gpu.h): one thread per output
// element (a grid-stride loop), elements moved as words of their size.
#include "ops/kernels/cuda/element_word.cuh"
#include "ops/kernels/gather_op_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

template <typename Word, typename Index>
__global__ void GatherKernel(GatherParams p, int64_t count, const Word* params,
                             const Index* indices, Word* out) {
  for (int64_t i = FirstIndex(); i < count; i += IndexStride()) {
    const int64_t k = i % p.inner;
    const int64_t row = i / p.inner;  // (b * outer + o) * n + j
    const int64_t j = row % p.n;
    const int64_t block = row / p.n;  // b * outer + o
    const int64_t b = block / p.outer;
    const int64_t id = static_cast<int64_t>(indices[b * p.n + j]);
    out[i] = params[(block * p.limit + id) * p.inner + k];
  }
}

template <typename Word>
cudaError_t Launch(cudaStream_t stream, const GatherParams& p, const void* params,
                   const void* indices, bool indices_int64, void* out) {
  const int64_t count = p.batch * p.outer * p.n * p.inner;
  if (count == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(count);
  const auto* src = static_cast<const Word*>(params);
  auto* dst = static_cast<Word*>(out);
  if (indices_int64) {
    GatherKernel<Word, int64_t><<<config.blocks, config.threads, 0, stream>>>(
        p, count, src, static_cast<const int64_t*>(indices), dst);
  } else {
    GatherKernel<Word, int32_t><<<config.blocks, config.threads, 0, stream>>>(
        p, count, src, static_cast<const int32_t*>(indices), dst);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchGather(cudaStream_t stream, size_t element_size, const GatherParams& p,
                         const void* params, const void* indices, bool indices_int64, void* out) {
  return WithElementWord(element_size, [&](auto word) {
    return Launch<decltype(word)>(stream, p, params, indices, indices_int64, out);
  });
}

}  // namespace minitf::gpu
