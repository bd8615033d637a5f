// Builds the geometry the conv and pooling functors take from concrete
// tensor shapes and the node's attrs, checking that the shapes fit together.
// Shared by every device's kernels for Conv2D, MaxPool and their gradients.
//
//   MINITF_ASSIGN_OR_RETURN(functor::Conv2DGeometry g,
//                           MakeConv2DGeometry(attrs, input.shape(), filter.shape()));
//   allocate Conv2DOutputShape(g), then call functor::Conv2DFunctor<T>.
//
// Errors are InvalidArgument naming the shapes at fault; callers prefix the
// node (AttachNodeName).
#ifndef MINITF_OPS_KERNELS_WINDOW_GEOMETRY_H_
#define MINITF_OPS_KERNELS_WINDOW_GEOMETRY_H_

#include "absl/status/statusor.h"
#include "ops/kernels/conv_functors.h"
#include "ops/kernels/pooling_functors.h"
#include "ops/util/window_attrs.h"
#include "runtime/tensor_shape.h"

namespace minitf {

// input: [batch, in_rows, in_cols, in_depth] ([batch, in_depth, in_rows,
// in_cols] when attrs.nchw); filter: [filter_rows, filter_cols, in_depth,
// out_depth]. The geometry, and the shapes below, are NHWC either way.
absl::StatusOr<functor::Conv2DGeometry> MakeConv2DGeometry(const Conv2DParameters& attrs,
                                                           const TensorShape& input,
                                                           const TensorShape& filter);
// [batch, out_rows, out_cols, out_depth].
TensorShape Conv2DOutputShape(const functor::Conv2DGeometry& g);
// [batch, in_rows, in_cols, in_depth]: the shape of Conv2DBackpropInput's output.
TensorShape Conv2DInputShape(const functor::Conv2DGeometry& g);
// [filter_rows, filter_cols, in_depth, out_depth]: that of Conv2DBackpropFilter's.
TensorShape Conv2DFilterShape(const functor::Conv2DGeometry& g);

// input: [batch, in_rows, in_cols, depth] ([batch, depth, in_rows,
// in_cols] when attrs.nchw); the geometry and the shape below are NHWC.
absl::StatusOr<functor::Pool2DGeometry> MakePool2DGeometry(const Pool2DParameters& attrs,
                                                           const TensorShape& input);
// [batch, out_rows, out_cols, depth].
TensorShape Pool2DOutputShape(const functor::Pool2DGeometry& g);

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_WINDOW_GEOMETRY_H_
