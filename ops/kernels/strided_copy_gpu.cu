// The CUDA kernels of strided_copy_gpu.h: one thread per element of the
// folded index space (a grid-stride loop), the element moved as one word of
// its size.
#include <cstring>

#include "ops/kernels/cuda/element_word.cuh"
#include "ops/kernels/strided_copy_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

template <typename Word>
__global__ void StridedCopyKernel(StridedCopyParams p, const Word* src, Word* dst) {
  for (int64_t i = FirstIndex(); i < p.count; i += IndexStride()) {
    int64_t rest = i;
    int64_t s = p.src_offset;
    int64_t d = p.dst_offset;
    for (int k = p.rank - 1; k >= 0; --k) {
      const int64_t index = rest % p.dims[k];
      rest /= p.dims[k];
      s += index * p.src_strides[k];
      d += index * p.dst_strides[k];
    }
    dst[d] = src[s];
  }
}

template <typename Word>
__global__ void FillKernel(Word* dst, int64_t n, Word value) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) dst[i] = value;
}

template <typename Word>
cudaError_t Copy(cudaStream_t stream, const StridedCopyParams& p, const void* src, void* dst) {
  const LaunchConfig config = LaunchConfigFor(p.count);
  StridedCopyKernel<Word><<<config.blocks, config.threads, 0, stream>>>(
      p, static_cast<const Word*>(src), static_cast<Word*>(dst));
  return cudaGetLastError();
}

template <typename Word>
cudaError_t Fill(cudaStream_t stream, void* dst, int64_t n, const void* value) {
  Word word;
  std::memcpy(&word, value, sizeof(Word));
  const LaunchConfig config = LaunchConfigFor(n);
  FillKernel<Word><<<config.blocks, config.threads, 0, stream>>>(static_cast<Word*>(dst), n, word);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchStridedCopy(cudaStream_t stream, size_t element_size,
                              const StridedCopyParams& params, const void* src, void* dst) {
  if (params.count == 0) return cudaSuccess;
  return WithElementWord(element_size,
                         [&](auto word) { return Copy<decltype(word)>(stream, params, src, dst); });
}

cudaError_t LaunchFillElements(cudaStream_t stream, void* dst, int64_t n, size_t element_size,
                               const void* value) {
  if (n == 0) return cudaSuccess;
  return WithElementWord(element_size,
                         [&](auto word) { return Fill<decltype(word)>(stream, dst, n, value); });
}

}  // namespace minitf::gpu
