// TransposeLayout: a Transpose reduced to the fewest dimensions that move,
// as the CUDA kernel (transpose_op_gpu.cu) walks it. Input dimensions of size 1
// are dropped, and input dimensions that stay next to each other, in the
// same order, in the output are merged into one: [B, T, H, D] -> [B, H, T, D]
// (perm {0, 2, 1, 3}) keeps its four dimensions, but [A, B, C] -> [C, A, B]
// (perm {2, 0, 1}) becomes a matrix transpose of [A*B, C].
//
//   TransposeLayout layout = MakeTransposeLayout(rank, in_dims, perm);
//   if (layout.IsCopy()) { ... }  // the elements keep their order
//
// Plain types only: the .cu file includes this header.
#ifndef MINITF_OPS_KERNELS_CUDA_TRANSPOSE_LAYOUT_H_
#define MINITF_OPS_KERNELS_CUDA_TRANSPOSE_LAYOUT_H_

#include <cstdint>

namespace minitf::gpu {

// The highest rank the Transpose kernels take (the CPU kernel's limit).
inline constexpr int kMaxTransposeRank = 8;

// y[index] = x[offset(index)] over a row-major output of `rank` dimensions,
// where offset(index) is the dot product of the index with in_strides: the
// stride, in elements of x, of the (merged) input dimension that output
// dimension d takes.
struct TransposeLayout {
  int rank = 0;
  int64_t out_dims[kMaxTransposeRank] = {};
  int64_t in_strides[kMaxTransposeRank] = {};

  // True when the output has x's elements in x's order (rank 0 or 1 after
  // merging): moving the bytes, or sharing them, is the whole transpose.
  bool IsCopy() const { return rank <= 1; }
};

// The layout of transposing a row-major x of dimensions in_dims[0, rank) by
// `perm` (output dimension i is input dimension perm[i]).
// REQUIRES: 0 <= rank <= kMaxTransposeRank, perm a permutation of [0, rank),
// every in_dims[d] > 0.
TransposeLayout MakeTransposeLayout(int rank, const int64_t* in_dims, const int* perm);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_CUDA_TRANSPOSE_LAYOUT_H_
