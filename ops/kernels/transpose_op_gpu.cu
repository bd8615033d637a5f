// The CUDA kernel of Transpose (see transpose_op_gpu.h): one thread per
// output element, in output order, so the writes are coalesced; each thread
// finds its input element from its output index and the layout's strides.
// The index arithmetic runs in 32 bits whenever the tensor allows it, since
// 64-bit division is several times slower on the GPU.
#include <climits>

#include "ops/kernels/cuda/element_word.cuh"
#include "ops/kernels/transpose_op_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

// `Index` holds every output index and input offset (both below n).
template <typename Word, typename Index>
__global__ void TransposeKernel(int64_t n, TransposeLayout layout, const Word* __restrict__ x,
                                Word* __restrict__ y) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) {
    Index rest = static_cast<Index>(i);
    Index offset = 0;
    for (int d = layout.rank - 1; d >= 0; --d) {
      const Index dim = static_cast<Index>(layout.out_dims[d]);
      offset += (rest % dim) * static_cast<Index>(layout.in_strides[d]);
      rest /= dim;
    }
    y[i] = x[offset];
  }
}

template <typename Word>
cudaError_t Launch(cudaStream_t stream, const TransposeLayout& layout, const void* x, void* y) {
  int64_t n = 1;
  for (int d = 0; d < layout.rank; ++d) n *= layout.out_dims[d];
  if (n == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(n);
  const Word* in = static_cast<const Word*>(x);
  Word* out = static_cast<Word*>(y);
  if (n <= INT_MAX) {
    TransposeKernel<Word, uint32_t><<<config.blocks, config.threads, 0, stream>>>(n, layout, in,
                                                                                  out);
  } else {
    TransposeKernel<Word, int64_t><<<config.blocks, config.threads, 0, stream>>>(n, layout, in,
                                                                                 out);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchTranspose(cudaStream_t stream, size_t element_size,
                            const TransposeLayout& layout, const void* x, void* y) {
  return WithElementWord(element_size,
                         [&](auto word) { return Launch<decltype(word)>(stream, layout, x, y); });
}

}  // namespace minitf::gpu
