#include "ops/kernels/window_geometry.h"

#include "absl/strings/str_cat.h"
#include "platform/status_macros.h"

namespace minitf {
namespace {

// ComputeWindowedSize with the dimension's name in the error.
absl::StatusOr<WindowedSize> SizeAlong(absl::string_view dimension, int64_t input, int64_t window,
                                       int64_t stride, int64_t dilation, Padding padding) {
  absl::StatusOr<WindowedSize> size = ComputeWindowedSize(input, window, stride, dilation, padding);
  if (!size.ok()) {
    return absl::Status(size.status().code(),
                        absl::StrCat(dimension, ": ", size.status().message()));
  }
  return size;
}

}  // namespace

absl::StatusOr<functor::Conv2DGeometry> MakeConv2DGeometry(const Conv2DParameters& attrs,
                                                           const TensorShape& input,
                                                           const TensorShape& filter) {
  if (input.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 4-dimensional ",
                     attrs.nchw ? "[batch, depth, rows, cols]" : "[batch, rows, cols, depth]",
                     ", got shape ", input.DebugString()));
  }
  if (filter.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("filter must be 4-dimensional [rows, cols, in_depth, out_depth], got shape ",
                     filter.DebugString()));
  }
  const int depth_dim = attrs.nchw ? 1 : 3;
  const int rows_dim = attrs.nchw ? 2 : 1;
  if (input.dim_size(depth_dim) != filter.dim_size(2)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input depth ", input.dim_size(depth_dim), " does not match filter in_depth ",
        filter.dim_size(2), " (input shape ", input.DebugString(), ", filter shape ",
        filter.DebugString(), ")"));
  }
  functor::Conv2DGeometry g;
  g.batch = input.dim_size(0);
  g.in_rows = input.dim_size(rows_dim);
  g.in_cols = input.dim_size(rows_dim + 1);
  g.in_depth = input.dim_size(depth_dim);
  g.filter_rows = filter.dim_size(0);
  g.filter_cols = filter.dim_size(1);
  g.out_depth = filter.dim_size(3);
  g.stride_rows = attrs.stride_rows;
  g.stride_cols = attrs.stride_cols;
  g.dilation_rows = attrs.dilation_rows;
  g.dilation_cols = attrs.dilation_cols;
  MINITF_ASSIGN_OR_RETURN(
      WindowedSize rows,
      SizeAlong("rows", g.in_rows, g.filter_rows, g.stride_rows, g.dilation_rows, attrs.padding));
  MINITF_ASSIGN_OR_RETURN(
      WindowedSize cols,
      SizeAlong("cols", g.in_cols, g.filter_cols, g.stride_cols, g.dilation_cols, attrs.padding));
  g.out_rows = rows.output;
  g.pad_top = rows.pad_before;
  g.out_cols = cols.output;
  g.pad_left = cols.pad_before;
  // Conv2DOutputShape and the functors' element counts need the output's
  // count to fit in int64_t (the input's and filter's do: they are shapes).
  absl::StatusOr<TensorShape> output =
      TensorShape::Build({g.batch, g.out_rows, g.out_cols, g.out_depth});
  if (!output.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("the convolution of input ", input.DebugString(),
                                                   " with filter ", filter.DebugString(),
                                                   ": output ", output.status().message()));
  }
  return g;
}

TensorShape Conv2DOutputShape(const functor::Conv2DGeometry& g) {
  return TensorShape({g.batch, g.out_rows, g.out_cols, g.out_depth});
}

TensorShape Conv2DInputShape(const functor::Conv2DGeometry& g) {
  return TensorShape({g.batch, g.in_rows, g.in_cols, g.in_depth});
}

TensorShape Conv2DFilterShape(const functor::Conv2DGeometry& g) {
  return TensorShape({g.filter_rows, g.filter_cols, g.in_depth, g.out_depth});
}

absl::StatusOr<functor::Pool2DGeometry> MakePool2DGeometry(const Pool2DParameters& attrs,
                                                           const TensorShape& input) {
  if (input.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 4-dimensional ",
                     attrs.nchw ? "[batch, depth, rows, cols]" : "[batch, rows, cols, depth]",
                     ", got shape ", input.DebugString()));
  }
  const int rows_dim = attrs.nchw ? 2 : 1;
  functor::Pool2DGeometry g;
  g.batch = input.dim_size(0);
  g.in_rows = input.dim_size(rows_dim);
  g.in_cols = input.dim_size(rows_dim + 1);
  g.depth = input.dim_size(attrs.nchw ? 1 : 3);
  g.window_rows = attrs.window_rows;
  g.window_cols = attrs.window_cols;
  g.stride_rows = attrs.stride_rows;
  g.stride_cols = attrs.stride_cols;
  MINITF_ASSIGN_OR_RETURN(WindowedSize rows, SizeAlong("rows", g.in_rows, g.window_rows,
                                                       g.stride_rows, 1, attrs.padding));
  MINITF_ASSIGN_OR_RETURN(WindowedSize cols, SizeAlong("cols", g.in_cols, g.window_cols,
                                                       g.stride_cols, 1, attrs.padding));
  g.out_rows = rows.output;
  g.pad_top = rows.pad_before;
  g.out_cols = cols.output;
  g.pad_left = cols.pad_before;
  return g;
}

TensorShape Pool2DOutputShape(const functor::Pool2DGeometry& g) {
  return TensorShape({g.batch, g.out_rows, g.out_cols, g.depth});
}

}  // namespace minitf
