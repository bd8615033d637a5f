#include <cfloat>

#include "stream/cuda/gpu_launch_config.h"
#include "stream/cuda/pooling_kernels.h"

namespace minitf::se::cuda {
namespace {

// The input offset of the first maximum in the window of output element
// `out_index` ([batch, out_rows, out_cols, depth] order), or -1 when the
// window covers no input.
__device__ int64_t ArgMaxOfWindow(const PoolShape& s, const float* input, int64_t out_index) {
  const int64_t k = out_index % s.depth;
  const int64_t oc = (out_index / s.depth) % s.out_cols;
  const int64_t orow = (out_index / (s.depth * s.out_cols)) % s.out_rows;
  const int64_t b = out_index / (s.depth * s.out_cols * s.out_rows);
  const int64_t top = orow * s.stride_rows - s.pad_top;
  const int64_t left = oc * s.stride_cols - s.pad_left;
  const int64_t row_begin = top > 0 ? top : 0;
  const int64_t row_end = top + s.window_rows < s.in_rows ? top + s.window_rows : s.in_rows;
  const int64_t col_begin = left > 0 ? left : 0;
  const int64_t col_end = left + s.window_cols < s.in_cols ? left + s.window_cols : s.in_cols;
  int64_t best = -1;
  for (int64_t r = row_begin; r < row_end; ++r) {
    for (int64_t c = col_begin; c < col_end; ++c) {
      const int64_t at = ((b * s.in_rows + r) * s.in_cols + c) * s.depth + k;
      if (best < 0 || input[at] > input[best]) best = at;
    }
  }
  return best;
}

__global__ void MaxPoolKernel(PoolShape s, int64_t total, const float* input, float* output) {
  for (int64_t i = FirstIndex(); i < total; i += IndexStride()) {
    const int64_t best = ArgMaxOfWindow(s, input, i);
    output[i] = best >= 0 ? input[best] : -FLT_MAX;
  }
}

__global__ void MaxPoolGradKernel(PoolShape s, int64_t total, const float* input,
                                  const float* out_backprop, float* in_backprop) {
  for (int64_t i = FirstIndex(); i < total; i += IndexStride()) {
    const int64_t best = ArgMaxOfWindow(s, input, i);
    if (best >= 0) atomicAdd(in_backprop + best, out_backprop[i]);
  }
}

}  // namespace

cudaError_t LaunchMaxPool(cudaStream_t stream, const PoolShape& shape, const float* input,
                          float* output) {
  const int64_t total = shape.batch * shape.out_rows * shape.out_cols * shape.depth;
  if (total == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(total);
  MaxPoolKernel<<<config.blocks, config.threads, 0, stream>>>(shape, total, input, output);
  return cudaGetLastError();
}

cudaError_t LaunchMaxPoolGrad(cudaStream_t stream, const PoolShape& shape, const float* input,
                              const float* out_backprop, float* in_backprop) {
  const int64_t in_total = shape.batch * shape.in_rows * shape.in_cols * shape.depth;
  if (in_total == 0) return cudaSuccess;
  if (const cudaError_t error =
          cudaMemsetAsync(in_backprop, 0, in_total * sizeof(float), stream);
      error != cudaSuccess) {
    return error;
  }
  const int64_t total = shape.batch * shape.out_rows * shape.out_cols * shape.depth;
  if (total == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(total);
  MaxPoolGradKernel<<<config.blocks, config.threads, 0, stream>>>(shape, total, input,
                                                                  out_backprop, in_backprop);
  return cudaGetLastError();
}

}  // namespace minitf::se::cuda
