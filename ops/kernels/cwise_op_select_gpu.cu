// The CUDA kernel of Select and SelectV2 (cwise_op_select_gpu.h): one
// thread per output element (a grid-stride loop), elements moved as words
// of their size.
#include "ops/kernels/cuda/element_word.cuh"
#include "ops/kernels/cwise_op_select_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

template <typename Word>
__global__ void SelectKernel(SelectWalkParams p, const bool* cond, const Word* t, const Word* e,
                             Word* out) {
  for (int64_t i = FirstIndex(); i < p.count; i += IndexStride()) {
    int64_t rest = i, c = 0, ti = 0, ei = 0;
    for (int k = p.rank - 1; k >= 0; --k) {
      const int64_t index = rest % p.dims[k];
      rest /= p.dims[k];
      c += index * p.cond_strides[k];
      ti += index * p.t_strides[k];
      ei += index * p.e_strides[k];
    }
    out[i] = cond[c] ? t[ti] : e[ei];
  }
}

template <typename Word>
cudaError_t Launch(cudaStream_t stream, const SelectWalkParams& p, const bool* cond,
                   const void* t, const void* e, void* out) {
  const LaunchConfig config = LaunchConfigFor(p.count);
  SelectKernel<Word><<<config.blocks, config.threads, 0, stream>>>(
      p, cond, static_cast<const Word*>(t), static_cast<const Word*>(e), static_cast<Word*>(out));
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchSelect(cudaStream_t stream, size_t element_size, const SelectWalkParams& params,
                         const bool* cond, const void* t, const void* e, void* out) {
  if (params.count == 0) return cudaSuccess;
  return WithElementWord(element_size, [&](auto word) {
    return Launch<decltype(word)>(stream, params, cond, t, e, out);
  });
}

}  // namespace minitf::gpu
