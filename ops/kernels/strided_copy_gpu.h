// Launchers of the CUDA kernels behind CudaMover (element_mover.h): a
// strided copy of a folded index space (strided_copy.h's FoldCopy) and a
// fill with one element's bytes. Plain types only; each enqueues on
// `stream` and returns the launch's error.
//
//   StridedCopyParams p = ...;   // from FoldCopy
//   LaunchStridedCopy(stream, sizeof(float), p, src, dst);
#ifndef MINITF_OPS_KERNELS_STRIDED_COPY_GPU_H_
#define MINITF_OPS_KERNELS_STRIDED_COPY_GPU_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace minitf::gpu {

inline constexpr int kMaxStridedCopyRank = 8;

// dst[dst_offset + sum_d i_d * dst_strides[d]] = src[src_offset + sum_d i_d * src_strides[d]]
// for every index i of dims[0..rank) (rank 0: one element). Offsets and
// strides count elements.
struct StridedCopyParams {
  int rank = 0;
  int64_t dims[kMaxStridedCopyRank] = {};
  int64_t src_strides[kMaxStridedCopyRank] = {};
  int64_t dst_strides[kMaxStridedCopyRank] = {};
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
  int64_t count = 1;  // the product of dims
};

// `element_size`: 1, 2, 4, 8 or 16 bytes (cudaErrorInvalidValue otherwise).
cudaError_t LaunchStridedCopy(cudaStream_t stream, size_t element_size,
                              const StridedCopyParams& params, const void* src, void* dst);

// Sets the `n` elements of `dst` to the `element_size` bytes at `value`
// (host memory, read before the launch returns).
cudaError_t LaunchFillElements(cudaStream_t stream, void* dst, int64_t n, size_t element_size,
                               const void* value);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_STRIDED_COPY_GPU_H_
