// Conv2DOpBase: what every device's Conv2D, Conv2DBackpropInput and
// Conv2DBackpropFilter kernel shares, TensorFlow's Conv2DOp<Device, T>
// before it calls its functor: the window attrs read once when the kernel
// is built, and the checks of the inputs that give the convolution's
// geometry. Subclasses allocate the output and do the arithmetic.
//
//   void Compute(OpKernelContext* ctx) override {
//     absl::StatusOr<functor::Conv2DGeometry> g = Conv2DGeometryOf(ctx);
//     OP_REQUIRES_OK(ctx, g.status());
//     allocate Conv2DOutputShape(*g), then convolve on this device.
//   }
//
// Errors are InvalidArgument naming the node; the messages are those of
// MakeConv2DGeometry (window_geometry.h) and of the checks below.
#ifndef MINITF_OPS_KERNELS_CONV_OPS_COMMON_H_
#define MINITF_OPS_KERNELS_CONV_OPS_COMMON_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ops/kernels/window_geometry.h"
#include "ops/util/window_attrs.h"
#include "runtime/op_kernel.h"

namespace minitf {

class Conv2DOpBase : public OpKernel {
 public:
  // Reads strides, padding, data_format and dilations (ReadConv2DParameters).
  explicit Conv2DOpBase(OpKernelConstruction* ctx);

 protected:
  // Conv2D: input (0) convolved by filter (1). The output has the shape
  // Conv2DOutputShape(g).
  absl::StatusOr<functor::Conv2DGeometry> Conv2DGeometryOf(OpKernelContext* ctx) const;

  // Conv2DBackpropInput: input_sizes (0, int32 in host memory), filter (1)
  // and out_backprop (2), which must have the convolution's output shape.
  // The output (in_backprop) has the shape Conv2DInputShape(g).
  absl::StatusOr<functor::Conv2DGeometry> BackpropInputGeometryOf(OpKernelContext* ctx) const;

  // Conv2DBackpropFilter: input (0), filter_sizes (1, int32 in host memory)
  // and out_backprop (2), checked as above. The output (filter_backprop) has
  // the shape Conv2DFilterShape(g).
  absl::StatusOr<functor::Conv2DGeometry> BackpropFilterGeometryOf(OpKernelContext* ctx) const;

  const Conv2DParameters& params() const { return params_; }

 private:
  // The convolution of `input` by `filter`; errors name the node.
  absl::StatusOr<functor::Conv2DGeometry> Geometry(const TensorShape& input,
                                                   const TensorShape& filter) const;
  // The shape an int32 sizes input (input_sizes, filter_sizes) holds.
  absl::StatusOr<TensorShape> ShapeFromSizes(const Tensor& sizes, absl::string_view name) const;
  // out_backprop must have the shape of the convolution's output.
  absl::Status CheckOutBackprop(const functor::Conv2DGeometry& g,
                                const Tensor& out_backprop) const;

  Conv2DParameters params_;  // Constant after construction.
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_CONV_OPS_COMMON_H_
