// CopyStrided: the one data mover of the array kernels (Concat, Split,
// Pack, Unpack, Slice, StridedSlice and its gradient, Pad, Tile,
// BroadcastTo). It walks an N-dimensional index space and copies one
// element per index from `src` to `dst`, each addressed by its own element
// offset and per-dimension element strides (a source stride may be negative,
// or 0 to repeat an element). Elements are moved as bytes, so one function
// serves every dtype; runs where both sides are contiguous become memcpy.
//
//   // out[i, j] = in[2 + i, 3 * j] for a [4, 5] window of a [10, 20] input:
//   CopyStrided(sizeof(float), {4, 5}, in_data, 2 * 20, {20, 3}, out_data, 0, {5, 1});
#ifndef MINITF_OPS_KERNELS_STRIDED_COPY_H_
#define MINITF_OPS_KERNELS_STRIDED_COPY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "runtime/tensor.h"

namespace minitf {

// A copy's index space with its size-1 dimensions dropped and the
// dimensions contiguous in both buffers folded into their outer neighbour
// (so a plain block is one dimension). Shared by the host's copy and the
// CUDA kernel's (strided_copy_gpu.h). `empty`: some dimension is 0.
struct FoldedCopy {
  bool empty = false;
  std::vector<int64_t> dims, src_strides, dst_strides;  // rank 0: one element
};
FoldedCopy FoldCopy(absl::Span<const int64_t> shape, absl::Span<const int64_t> src_strides,
                    absl::Span<const int64_t> dst_strides);

// REQUIRES: every index of `shape` addresses an element inside both
// buffers; the spans have shape.size() entries.
void CopyStrided(size_t element_size, absl::Span<const int64_t> shape, const void* src,
                 int64_t src_offset, absl::Span<const int64_t> src_strides, void* dst,
                 int64_t dst_offset, absl::Span<const int64_t> dst_strides);

// The row-major element strides of `dims`.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);

// Sets every element of `t` to the scalar `value` (same dtype), bytewise.
void FillWithScalar(const Tensor& value, Tensor* t);

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_STRIDED_COPY_H_
