// Reading the `perm` of Transpose: which input dimension each output
// dimension takes. Shared by the op's shape function (when perm is a
// constant) and its kernel, so both reject the same permutations.
//
//   MINITF_ASSIGN_OR_RETURN(std::vector<int> perm, TransposePermutation(perm_tensor, x.dims()));
//   // output dimension i has the size of input dimension perm[i].
#ifndef MINITF_OPS_KERNELS_TRANSPOSE_PERM_H_
#define MINITF_OPS_KERNELS_TRANSPOSE_PERM_H_

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

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_TRANSPOSE_PERM_H_
