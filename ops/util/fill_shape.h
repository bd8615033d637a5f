// Reading Fill's inputs: the output shape from `dims` (an int32 or int64
// vector) and the check that `value` is a scalar. Shared by the CPU and
// CUDA kernels, so both reject the same inputs with the same messages.
//
//   MINITF_ASSIGN_OR_RETURN(TensorShape shape, FillShape(ctx->input(0), ctx->input(1)));
#ifndef MINITF_OPS_UTIL_FILL_SHAPE_H_
#define MINITF_OPS_UTIL_FILL_SHAPE_H_

#include "absl/status/statusor.h"
#include "runtime/tensor.h"

namespace minitf {

// InvalidArgument, without the node's name (callers attach it), when `dims`
// is not an int32 or int64 vector, `value` is not a scalar, or the sizes do
// not make a valid shape (negative, or too many elements).
absl::StatusOr<TensorShape> FillShape(const Tensor& dims, const Tensor& value);

}  // namespace minitf

#endif  // MINITF_OPS_UTIL_FILL_SHAPE_H_
