// BCast: NumPy-style broadcasting of two shapes, worked out in the form an
// Eigen kernel evaluates it: each operand reshaped to a common rank, then
// broadcast (tiled) along some dimensions to the output's extent.
//
//   MINITF_ASSIGN_OR_RETURN(BCast b, BCast::Make(x.shape(), y.shape()));
//   // b.output_shape() is the result's TensorShape. In the merged view the
//   // result is b.result_dims(), and operand x is
//   //   x.shaped<T, N>(b.x_reshape()).broadcast(b.x_bcast())
//   // with N = b.rank().
//
// Shapes are aligned at their trailing dimensions; a missing or size-1
// dimension stretches to the other operand's size. Adjacent dimensions that
// broadcast the same way are merged, so [2,3,4] + [2,3,4] is one dimension of
// 24 and [2,3,4] + [4] is [6,4] + [1,4]: kernels need templates only for the
// small ranks that remain.
#ifndef MINITF_OPS_UTIL_BCAST_H_
#define MINITF_OPS_UTIL_BCAST_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/tensor_shape.h"

namespace minitf {

class BCast {
 public:
  using Dims = std::vector<int64_t>;

  // InvalidArgument naming both shapes when they cannot broadcast.
  static absl::StatusOr<BCast> Make(const TensorShape& x, const TensorShape& y);

  // The shape of the elementwise result.
  const TensorShape& output_shape() const { return output_shape_; }
  // True when neither operand needs broadcasting (equal element counts).
  bool IsTrivial() const { return x_bcast_all_ones_ && y_bcast_all_ones_; }

  // The merged view; every vector below has rank() entries, and for each d:
  // x_reshape[d] * x_bcast[d] == y_reshape[d] * y_bcast[d] == result_dims[d].
  // A scalar result has rank 1 (one dimension of size 1).
  int rank() const { return static_cast<int>(result_dims_.size()); }
  const Dims& result_dims() const { return result_dims_; }
  const Dims& x_reshape() const { return x_reshape_; }
  const Dims& x_bcast() const { return x_bcast_; }
  const Dims& y_reshape() const { return y_reshape_; }
  const Dims& y_bcast() const { return y_bcast_; }

 private:
  BCast() = default;

  TensorShape output_shape_;
  Dims result_dims_;
  Dims x_reshape_, x_bcast_;
  Dims y_reshape_, y_bcast_;
  bool x_bcast_all_ones_ = true;
  bool y_bcast_all_ones_ = true;
};

}  // namespace minitf

#endif  // MINITF_OPS_UTIL_BCAST_H_
