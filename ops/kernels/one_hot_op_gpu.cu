// The CUDA kernel of OneHot (one_hot_op_gpu.h): one thread per output
// element (a grid-stride loop), elements written as words of their size.
#include "ops/kernels/cuda/element_word.cuh"
#include "ops/kernels/one_hot_op_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

template <typename Word, typename Index>
__global__ void OneHotKernel(const Index* indices, int64_t count, int64_t depth, int64_t suffix,
                             const Word* on_value, const Word* off_value, Word* out) {
  const Word on = *on_value;
  const Word off = *off_value;
  for (int64_t i = FirstIndex(); i < count; i += IndexStride()) {
    const int64_t s = i % suffix;
    const int64_t row = i / suffix;  // p * depth + d
    const int64_t d = row % depth;
    const int64_t p = row / depth;
    out[i] = static_cast<int64_t>(indices[p * suffix + s]) == d ? on : off;
  }
}

template <typename Word>
cudaError_t Launch(cudaStream_t stream, const void* indices, bool indices_int64, int64_t prefix,
                   int64_t depth, int64_t suffix, const void* on_value, const void* off_value,
                   void* out) {
  const int64_t count = prefix * depth * suffix;
  if (count == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(count);
  const auto* on = static_cast<const Word*>(on_value);
  const auto* off = static_cast<const Word*>(off_value);
  auto* dst = static_cast<Word*>(out);
  if (indices_int64) {
    OneHotKernel<Word, int64_t><<<config.blocks, config.threads, 0, stream>>>(
        static_cast<const int64_t*>(indices), count, depth, suffix, on, off, dst);
  } else {
    OneHotKernel<Word, int32_t><<<config.blocks, config.threads, 0, stream>>>(
        static_cast<const int32_t*>(indices), count, depth, suffix, on, off, dst);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchOneHot(cudaStream_t stream, size_t element_size, const void* indices,
                         bool indices_int64, int64_t prefix, int64_t depth, int64_t suffix,
                         const void* on_value, const void* off_value, void* out) {
  return WithElementWord(element_size, [&](auto word) {
    return Launch<decltype(word)>(stream, indices, indices_int64, prefix, depth, suffix, on_value,
                                  off_value, out);
  });
}

}  // namespace minitf::gpu
