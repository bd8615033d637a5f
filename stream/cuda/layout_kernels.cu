#include "stream/cuda/gpu_launch_config.h"
#include "stream/cuda/layout_kernels.h"

namespace minitf::se::cuda {
namespace {

__global__ void Fill32Kernel(uint32_t* dst, uint32_t pattern, int64_t count) {
  for (int64_t i = FirstIndex(); i < count; i += IndexStride()) dst[i] = pattern;
}

// One thread per element of the padded tensor [n, prows, pcols, depth].
__global__ void PadNhwcKernel(const float* src, int64_t total, int64_t rows, int64_t cols,
                              int64_t depth, int64_t prows, int64_t pcols, float* dst) {
  for (int64_t i = FirstIndex(); i < total; i += IndexStride()) {
    const int64_t k = i % depth;
    const int64_t c = (i / depth) % pcols;
    const int64_t r = (i / (depth * pcols)) % prows;
    const int64_t b = i / (depth * pcols * prows);
    dst[i] = (r < rows && c < cols) ? src[((b * rows + r) * cols + c) * depth + k] : 0.0f;
  }
}

// One thread per element of the cropped tensor [n, rows, cols, depth].
__global__ void CropNhwcKernel(const float* src, int64_t total, int64_t rows, int64_t cols,
                               int64_t depth, int64_t prows, int64_t pcols, float* dst) {
  for (int64_t i = FirstIndex(); i < total; i += IndexStride()) {
    const int64_t k = i % depth;
    const int64_t c = (i / depth) % cols;
    const int64_t r = (i / (depth * cols)) % rows;
    const int64_t b = i / (depth * cols * rows);
    dst[i] = src[((b * prows + r) * pcols + c) * depth + k];
  }
}

struct Transpose4DParams {
  int64_t dst_dims[4];
  // The src stride of each dst dimension.
  int64_t src_strides[4];
};

__global__ void Transpose4DKernel(const float* src, int64_t total, Transpose4DParams p,
                                  float* dst) {
  for (int64_t i = FirstIndex(); i < total; i += IndexStride()) {
    int64_t rest = i, offset = 0;
    for (int d = 3; d >= 0; --d) {
      offset += (rest % p.dst_dims[d]) * p.src_strides[d];
      rest /= p.dst_dims[d];
    }
    dst[i] = src[offset];
  }
}

}  // namespace

cudaError_t LaunchFill32(cudaStream_t stream, uint32_t* dst, uint32_t pattern, uint64_t count) {
  const LaunchConfig config = LaunchConfigFor(static_cast<int64_t>(count));
  Fill32Kernel<<<config.blocks, config.threads, 0, stream>>>(dst, pattern,
                                                             static_cast<int64_t>(count));
  return cudaGetLastError();
}

cudaError_t LaunchPadNhwc(cudaStream_t stream, const float* src, int64_t n, int64_t rows,
                          int64_t cols, int64_t depth, int64_t extra_rows, int64_t extra_cols,
                          float* dst) {
  const int64_t prows = rows + extra_rows, pcols = cols + extra_cols;
  const int64_t total = n * prows * pcols * depth;
  if (total == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(total);
  PadNhwcKernel<<<config.blocks, config.threads, 0, stream>>>(src, total, rows, cols, depth,
                                                              prows, pcols, dst);
  return cudaGetLastError();
}

cudaError_t LaunchCropNhwc(cudaStream_t stream, const float* src, int64_t n, int64_t rows,
                           int64_t cols, int64_t depth, int64_t extra_rows, int64_t extra_cols,
                           float* dst) {
  const int64_t total = n * rows * cols * depth;
  if (total == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(total);
  CropNhwcKernel<<<config.blocks, config.threads, 0, stream>>>(
      src, total, rows, cols, depth, rows + extra_rows, cols + extra_cols, dst);
  return cudaGetLastError();
}

cudaError_t LaunchTranspose4D(cudaStream_t stream, const float* src, const int64_t src_dims[4],
                              const int perm[4], float* dst) {
  int64_t src_strides[4];
  src_strides[3] = 1;
  for (int d = 2; d >= 0; --d) src_strides[d] = src_strides[d + 1] * src_dims[d + 1];
  Transpose4DParams params;
  int64_t total = 1;
  for (int j = 0; j < 4; ++j) {
    params.dst_dims[j] = src_dims[perm[j]];
    params.src_strides[j] = src_strides[perm[j]];
    total *= src_dims[j];
  }
  if (total == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(total);
  Transpose4DKernel<<<config.blocks, config.threads, 0, stream>>>(src, total, params, dst);
  return cudaGetLastError();
}

}  // namespace minitf::se::cuda
