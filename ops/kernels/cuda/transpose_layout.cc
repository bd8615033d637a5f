#include "ops/kernels/cuda/transpose_layout.h"

namespace minitf::gpu {

TransposeLayout MakeTransposeLayout(int rank, const int64_t* in_dims, const int* perm) {
  // Row-major strides of x, and for each input dimension the next one after
  // it of size other than 1 (rank when there is none).
  int64_t strides[kMaxTransposeRank];
  int next_moving[kMaxTransposeRank];
  int64_t stride = 1;
  int next = rank;
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= in_dims[d];
    next_moving[d] = next;
    if (in_dims[d] != 1) next = d;
  }
  TransposeLayout layout;
  int previous = -1;  // The input dimension that ends the last output dimension.
  for (int i = 0; i < rank; ++i) {
    const int d = perm[i];
    if (in_dims[d] == 1) continue;
    if (previous >= 0 && next_moving[previous] == d) {
      // d follows `previous` in x as in the output: the merged dimension
      // grows by d's size and steps by d's stride.
      layout.out_dims[layout.rank - 1] *= in_dims[d];
      layout.in_strides[layout.rank - 1] = strides[d];
    } else {
      layout.out_dims[layout.rank] = in_dims[d];
      layout.in_strides[layout.rank] = strides[d];
      ++layout.rank;
    }
    previous = d;
  }
  return layout;
}

}  // namespace minitf::gpu
