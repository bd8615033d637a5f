#include "ops/util/reduction_axes.h"

#include "absl/strings/str_cat.h"

namespace minitf {

absl::StatusOr<std::vector<bool>> ReducedDims(const Tensor& axes, int rank) {
  if (axes.dims() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reduction_indices must be a scalar or a vector, got shape ", axes.shape().DebugString()));
  }
  std::vector<int64_t> values;
  if (axes.dtype() == DT_INT32) {
    auto flat = axes.flat<int32_t>();
    values.assign(flat.data(), flat.data() + flat.size());
  } else if (axes.dtype() == DT_INT64) {
    auto flat = axes.flat<int64_t>();
    values.assign(flat.data(), flat.data() + flat.size());
  } else {
    return absl::InvalidArgumentError(absl::StrCat("reduction_indices must be int32 or int64, got ",
                                                   DataTypeString(axes.dtype())));
  }
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : values) {
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("reduction axis ", axis,
                                                     " is out of range for an input of rank ", rank,
                                                     " (valid: [", -rank, ", ", rank, "))"));
    }
    const int64_t d = axis < 0 ? axis + rank : axis;
    if (reduced[d]) {
      return absl::InvalidArgumentError(absl::StrCat("reduction_indices ", axes.SummarizeValue(),
                                                     " name dimension ", d, " twice (axis ", axis,
                                                     ")"));
    }
    reduced[d] = true;
  }
  return reduced;
}

}  // namespace minitf
