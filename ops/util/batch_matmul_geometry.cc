#include "ops/util/batch_matmul_geometry.h"

#include "absl/strings/str_cat.h"

namespace minitf {

absl::StatusOr<BatchMatMulGeometry> BatchMatMulGeometryOf(const TensorShape& x,
                                                          const TensorShape& y, bool adj_x,
                                                          bool adj_y) {
  // `what`, then both operands' shapes.
  auto error = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(what, "In[0]: ", x.DebugString(),
                                                   ", In[1]: ", y.DebugString(),
                                                   adj_x ? " (adj_x)" : "",
                                                   adj_y ? " (adj_y)" : ""));
  };
  if (x.dims() < 2 || y.dims() < 2) return error("x and y must have rank at least 2, ");
  if (x.dims() != y.dims()) {
    return error("x and y must have the same rank (equal batch dimensions), ");
  }
  const int rank = x.dims();
  BatchMatMulGeometry g;
  for (int d = 0; d < rank - 2; ++d) {
    if (x.dim_size(d) != y.dim_size(d)) {
      return error(absl::StrCat("batch dimension ", d, " differs: "));
    }
    // Cannot overflow: x has these dimensions.
    g.output_shape.AddDim(x.dim_size(d));
    g.batch *= x.dim_size(d);
  }
  g.x_rows = x.dim_size(rank - 2);
  g.x_cols = x.dim_size(rank - 1);
  g.y_rows = y.dim_size(rank - 2);
  g.y_cols = y.dim_size(rank - 1);
  g.m = adj_x ? g.x_cols : g.x_rows;
  g.k = adj_x ? g.x_rows : g.x_cols;
  g.n = adj_y ? g.y_rows : g.y_cols;
  if (g.k != (adj_y ? g.y_cols : g.y_rows)) return error("Matrix size-incompatible: ");
  if (!g.output_shape.AddDimWithStatus(g.m).ok() || !g.output_shape.AddDimWithStatus(g.n).ok()) {
    return error("the output has more than 2^63-1 elements: ");
  }
  return g;
}

}  // namespace minitf
