// Pool2DOpBase: what every device's MaxPool, MaxPoolGrad, AvgPool and
// AvgPoolGrad kernel shares,
// TensorFlow's MaxPoolingOp<Device, T> before it calls its functor: the
// window attrs read once when the kernel is built, and the checks of the
// inputs that give the pooling's geometry. Subclasses allocate the output
// and do the arithmetic.
//
//   absl::StatusOr<functor::Pool2DGeometry> g = MaxPoolGeometryOf(ctx);
//   OP_REQUIRES_OK(ctx, g.status());
//   allocate Pool2DOutputShape(*g), then pool on this device.
//
// Errors are InvalidArgument naming the node; the messages are those of
// MakePool2DGeometry (window_geometry.h) and of the checks below.
#ifndef MINITF_OPS_KERNELS_POOLING_OPS_COMMON_H_
#define MINITF_OPS_KERNELS_POOLING_OPS_COMMON_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ops/kernels/window_geometry.h"
#include "ops/util/window_attrs.h"
#include "runtime/op_kernel.h"

namespace minitf {

class Pool2DOpBase : public OpKernel {
 public:
  // Reads ksize, strides, padding and data_format (ReadPool2DParameters).
  explicit Pool2DOpBase(OpKernelConstruction* ctx);

 protected:
  // data_format NCHW: the kernels compute in NHWC between transposes
  // (image_layout.h).
  bool nchw() const { return params_.nchw; }

  // An NHWC shape (Pool2DOutputShape, an input's) in the op's layout.
  TensorShape ImageShape(const TensorShape& nhwc) const;

  // MaxPool and AvgPool: the pooling of input (0). The output has the shape
  // ImageShape(Pool2DOutputShape(g)).
  absl::StatusOr<functor::Pool2DGeometry> MaxPoolGeometryOf(OpKernelContext* ctx) const;

  // MaxPoolGrad: the pooling of orig_input (0), whose orig_output (1) and
  // grad (2) must have the pooled shape. The output has orig_input's shape.
  absl::StatusOr<functor::Pool2DGeometry> MaxPoolGradGeometryOf(OpKernelContext* ctx) const;

  // AvgPoolGrad: the pooling of an input of the shape orig_input_shape (0,
  // an int32 vector of 4 sizes in host memory, in the op's layout), whose
  // grad (1) must have the pooled shape. The output has the shape
  // orig_input_shape holds.
  absl::StatusOr<functor::Pool2DGeometry> AvgPoolGradGeometryOf(OpKernelContext* ctx) const;

 private:
  // The pooling of `input`; errors name the node.
  absl::StatusOr<functor::Pool2DGeometry> Geometry(const TensorShape& input) const;
  absl::Status CheckPooledShape(absl::string_view name, const Tensor& tensor,
                                const TensorShape& orig_input, const TensorShape& pooled) const;

  Pool2DParameters params_;  // Constant after construction.
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_POOLING_OPS_COMMON_H_
