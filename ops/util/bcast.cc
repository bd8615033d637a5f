#include "ops/util/bcast.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace minitf {

absl::StatusOr<BCast> BCast::Make(const TensorShape& x, const TensorShape& y) {
  BCast b;
  const int rank = std::max(x.dims(), y.dims());
  // Whether the previous kept dimension stretched x, and y; a dimension that
  // stretches the same operands as the one before it merges into it.
  bool prev_x_stretched = false, prev_y_stretched = false;
  for (int i = 0; i < rank; ++i) {
    const int ix = x.dims() - rank + i, iy = y.dims() - rank + i;
    const int64_t dx = ix >= 0 ? x.dim_size(ix) : 1;
    const int64_t dy = iy >= 0 ? y.dim_size(iy) : 1;
    int64_t out;
    if (dx == dy || dy == 1) {
      out = dx;
    } else if (dx == 1) {
      out = dy;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("Incompatible shapes: ", x.DebugString(), " vs. ", y.DebugString()));
    }
    if (!b.output_shape_.AddDimWithStatus(out).ok()) {
      return absl::InvalidArgumentError(absl::StrCat("broadcasting ", x.DebugString(), " and ",
                                                     y.DebugString(),
                                                     " gives more than 2^63-1 elements"));
    }
    if (out == 1) continue;  // Size 1 everywhere: no effect on the layout.
    const bool x_stretched = dx != out, y_stretched = dy != out;
    // Merging multiplies sizes. The product overflows only when a 0 size
    // elsewhere empties the output (whose count fits); such dimensions stay
    // apart.
    if (!b.result_dims_.empty() && x_stretched == prev_x_stretched &&
        y_stretched == prev_y_stretched &&
        MultiplyWithoutOverflow(b.result_dims_.back(), out) >= 0) {
      b.result_dims_.back() *= out;
      (x_stretched ? b.x_bcast_ : b.x_reshape_).back() *= out;
      (y_stretched ? b.y_bcast_ : b.y_reshape_).back() *= out;
    } else {
      b.result_dims_.push_back(out);
      b.x_reshape_.push_back(x_stretched ? 1 : out);
      b.x_bcast_.push_back(x_stretched ? out : 1);
      b.y_reshape_.push_back(y_stretched ? 1 : out);
      b.y_bcast_.push_back(y_stretched ? out : 1);
    }
    b.x_bcast_all_ones_ = b.x_bcast_all_ones_ && !x_stretched;
    b.y_bcast_all_ones_ = b.y_bcast_all_ones_ && !y_stretched;
    prev_x_stretched = x_stretched;
    prev_y_stretched = y_stretched;
  }
  if (b.result_dims_.empty()) {
    b.result_dims_ = b.x_reshape_ = b.x_bcast_ = b.y_reshape_ = b.y_bcast_ = {1};
  }
  return b;
}

}  // namespace minitf
