// Reading the `reduction_indices` of Sum, Mean and Max: which dimensions of
// the input a reduction folds away. Shared by the ops' shape function (when
// the axes are a constant) and their kernels, so both reject the same axes.
//
//   MINITF_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedDims(axes, input.dims()));
//   // reduced[d] is true when dimension d is summed over.
#ifndef MINITF_OPS_UTIL_REDUCTION_AXES_H_
#define MINITF_OPS_UTIL_REDUCTION_AXES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "runtime/tensor.h"

namespace minitf {

// `axes` is an int32 or int64 scalar or vector; an axis a in [-rank, rank)
// names dimension a (a >= 0) or rank + a (a < 0). Returns one flag per
// dimension of a rank-`rank` input. InvalidArgument, without the node's name
// (callers attach it), for an axis out of range, an axis named twice (also
// as -1 and rank-1), or axes of rank > 1 or of another type.
absl::StatusOr<std::vector<bool>> ReducedDims(const Tensor& axes, int rank);

}  // namespace minitf

#endif  // MINITF_OPS_UTIL_REDUCTION_AXES_H_
