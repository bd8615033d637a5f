// The CUDA platform's data-movement kernels: a 32-bit fill (Memset32), and
// the layout changes cuDNN needs around TensorFlow's layouts (NHWC zero
// padding and cropping, 4-D transposes between HWIO and OHWI filters).
// Each enqueues one kernel on `stream` and returns the launch's error.
//
//   LaunchFill32(stream, ptr, 0x3f800000u, count);   // count floats of 1.0
#ifndef MINITF_STREAM_CUDA_LAYOUT_KERNELS_H_
#define MINITF_STREAM_CUDA_LAYOUT_KERNELS_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::se::cuda {

// dst[i] = pattern for i in [0, count).
cudaError_t LaunchFill32(cudaStream_t stream, uint32_t* dst, uint32_t pattern, uint64_t count);

// dst [n, rows + extra_rows, cols + extra_cols, depth] = src [n, rows, cols,
// depth] followed by zero rows and columns.
cudaError_t LaunchPadNhwc(cudaStream_t stream, const float* src, int64_t n, int64_t rows,
                          int64_t cols, int64_t depth, int64_t extra_rows, int64_t extra_cols,
                          float* dst);
// The inverse: dst [n, rows, cols, depth] = the leading rows and columns of
// src [n, rows + extra_rows, cols + extra_cols, depth].
cudaError_t LaunchCropNhwc(cudaStream_t stream, const float* src, int64_t n, int64_t rows,
                           int64_t cols, int64_t depth, int64_t extra_rows, int64_t extra_cols,
                           float* dst);

// dst = src with its 4 dimensions reordered: dst dimension j is src
// dimension perm[j]. HWIO -> OHWI is perm {3, 0, 1, 2}; OHWI -> HWIO is
// {1, 2, 3, 0}.
cudaError_t LaunchTranspose4D(cudaStream_t stream, const float* src, const int64_t src_dims[4],
                              const int perm[4], float* dst);

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_LAYOUT_KERNELS_H_
