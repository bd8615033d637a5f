#include "ops/kernels/conv_ops_common.h"

#include "absl/strings/str_cat.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {

Conv2DOpBase::Conv2DOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  absl::StatusOr<Conv2DParameters> params = ReadConv2DParameters(ctx->def());
  OP_REQUIRES_OK(ctx, params.status());
  params_ = *params;
}

absl::StatusOr<functor::Conv2DGeometry> Conv2DOpBase::Conv2DGeometryOf(
    OpKernelContext* ctx) const {
  return Geometry(ctx->input(0).shape(), ctx->input(1).shape());
}

absl::StatusOr<functor::Conv2DGeometry> Conv2DOpBase::BackpropInputGeometryOf(
    OpKernelContext* ctx) const {
  absl::StatusOr<TensorShape> input_shape = ShapeFromSizes(ctx->input(0), "input_sizes");
  if (!input_shape.ok()) return input_shape.status();
  absl::StatusOr<functor::Conv2DGeometry> g = Geometry(*input_shape, ctx->input(1).shape());
  if (!g.ok()) return g.status();
  if (absl::Status s = CheckOutBackprop(*g, ctx->input(2)); !s.ok()) return s;
  return g;
}

absl::StatusOr<functor::Conv2DGeometry> Conv2DOpBase::BackpropFilterGeometryOf(
    OpKernelContext* ctx) const {
  absl::StatusOr<TensorShape> filter_shape = ShapeFromSizes(ctx->input(1), "filter_sizes");
  if (!filter_shape.ok()) return filter_shape.status();
  absl::StatusOr<functor::Conv2DGeometry> g = Geometry(ctx->input(0).shape(), *filter_shape);
  if (!g.ok()) return g.status();
  if (absl::Status s = CheckOutBackprop(*g, ctx->input(2)); !s.ok()) return s;
  return g;
}

absl::StatusOr<functor::Conv2DGeometry> Conv2DOpBase::Geometry(const TensorShape& input,
                                                               const TensorShape& filter) const {
  absl::StatusOr<functor::Conv2DGeometry> g = MakeConv2DGeometry(params_, input, filter);
  if (!g.ok()) return AttachNodeName(g.status(), def());
  return g;
}

absl::StatusOr<TensorShape> Conv2DOpBase::ShapeFromSizes(const Tensor& sizes,
                                                         absl::string_view name) const {
  if (sizes.dims() != 1 || sizes.NumElements() != 4) {
    return AttachNodeName(
        absl::InvalidArgumentError(absl::StrCat(name, " must be a vector of 4 sizes, got shape ",
                                                sizes.shape().DebugString())),
        def());
  }
  const int32_t* v = sizes.data<int32_t>();
  for (int i = 0; i < 4; ++i) {
    if (v[i] < 0) {
      return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                name, " must not be negative, got ", sizes.SummarizeValue())),
                            def());
    }
  }
  absl::StatusOr<TensorShape> shape = TensorShape::Build({v[0], v[1], v[2], v[3]});
  if (!shape.ok()) {
    return AttachNodeName(
        absl::InvalidArgumentError(absl::StrCat(name, ": ", shape.status().message())), def());
  }
  return shape;
}

absl::Status Conv2DOpBase::CheckOutBackprop(const functor::Conv2DGeometry& g,
                                            const Tensor& out_backprop) const {
  const TensorShape expected = Conv2DOutputShape(g);
  if (out_backprop.shape() == expected) return absl::OkStatus();
  return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                            "out_backprop has shape ", out_backprop.shape().DebugString(),
                            " but the convolution's output has shape ", expected.DebugString())),
                        def());
}

}  // namespace minitf
