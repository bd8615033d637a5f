// Reading the `perm` of Transpose: which input dimension each output
// dimension takes. Shared by the op's shape function (when perm is a
// constant) and its CPU and CUDA kernels, so all reject the same
// permutations with the same messages.
//
//   MINITF_ASSIGN_OR_RETURN(std::vector<int> perm, TransposePermutation(perm_tensor, x.dims()));
//   // output dimension i has the size of input dimension perm[i].
#ifndef MINITF_OPS_UTIL_TRANSPOSE_PERM_H_
#define MINITF_OPS_UTIL_TRANSPOSE_PERM_H_

#include <vector>

#include "absl/status/statusor.h"
#include "runtime/tensor.h"

namespace minitf {

// `perm` is an int32 or int64 vector holding a permutation of [0, rank).
// InvalidArgument, without the node's name (callers attach it), for a perm
// that is not a vector, of another type, of a length other than `rank`, or
// with an entry out of range or repeated. Negative entries are out of range,
// as in TensorFlow's kernel.
absl::StatusOr<std::vector<int>> TransposePermutation(const Tensor& perm, int rank);

// What a Transpose kernel knows before it moves any data.
struct TransposePlan {
  std::vector<int> perm;  // output dimension i is input dimension perm[i]
  TensorShape out_shape;
  bool identity = false;  // every dimension stays in place: the output is x
};

// The plan of transposing `x` by `perm`, for a kernel that moves data of
// rank up to `max_rank`. Errors name no node (callers attach it):
// TransposePermutation's, followed by "; x has shape ...", and
// Unimplemented for a rank above `max_rank` that is not the identity.
absl::StatusOr<TransposePlan> PlanTranspose(const Tensor& x, const Tensor& perm, int max_rank);

}  // namespace minitf

#endif  // MINITF_OPS_UTIL_TRANSPOSE_PERM_H_
