// CudaMover: the array kernels' element moves (element_mover.h) on the
// compute stream of their CUDA device: a strided copy, a fill with one
// element, zeroing (strided_copy_gpu.cu). Errors name the node; a copy of
// more than gpu::kMaxStridedCopyRank dimensions once folded is
// Unimplemented.
#ifndef MINITF_OPS_KERNELS_CUDA_CUDA_MOVER_H_
#define MINITF_OPS_KERNELS_CUDA_CUDA_MOVER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf {

struct CudaMover {
  static absl::Status Copy(OpKernelContext* ctx, size_t element_size,
                           absl::Span<const int64_t> shape, const void* src, int64_t src_offset,
                           absl::Span<const int64_t> src_strides, void* dst, int64_t dst_offset,
                           absl::Span<const int64_t> dst_strides);
  // `value`: a scalar of t's dtype in host memory.
  static absl::Status Fill(OpKernelContext* ctx, const Tensor& value, Tensor* t);
  static absl::Status Zero(OpKernelContext* ctx, Tensor* t);
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_CUDA_CUDA_MOVER_H_
