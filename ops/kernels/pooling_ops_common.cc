#include "ops/kernels/pooling_ops_common.h"

#include "absl/strings/str_cat.h"
#include "ops/kernels/image_layout.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {

Pool2DOpBase::Pool2DOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  absl::StatusOr<Pool2DParameters> params = ReadPool2DParameters(ctx->def());
  OP_REQUIRES_OK(ctx, params.status());
  params_ = *params;
}

TensorShape Pool2DOpBase::ImageShape(const TensorShape& nhwc) const {
  return nchw() ? Permuted(nhwc, kNhwcToNchw) : nhwc;
}

absl::StatusOr<functor::Pool2DGeometry> Pool2DOpBase::MaxPoolGeometryOf(
    OpKernelContext* ctx) const {
  return Geometry(ctx->input(0).shape());
}

absl::StatusOr<functor::Pool2DGeometry> Pool2DOpBase::MaxPoolGradGeometryOf(
    OpKernelContext* ctx) const {
  const Tensor& orig_input = ctx->input(0);
  absl::StatusOr<functor::Pool2DGeometry> g = Geometry(orig_input.shape());
  if (!g.ok()) return g.status();
  const TensorShape pooled = ImageShape(Pool2DOutputShape(*g));
  if (absl::Status s =
          CheckPooledShape("orig_output", ctx->input(1), orig_input.shape(), pooled);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckPooledShape("grad", ctx->input(2), orig_input.shape(), pooled);
      !s.ok()) {
    return s;
  }
  return g;
}

absl::StatusOr<functor::Pool2DGeometry> Pool2DOpBase::AvgPoolGradGeometryOf(
    OpKernelContext* ctx) const {
  const Tensor& sizes = ctx->input(0);
  if (sizes.dims() != 1 || sizes.NumElements() != 4) {
    return AttachNodeName(
        absl::InvalidArgumentError(absl::StrCat(
            "orig_input_shape must be a vector of 4 sizes, got shape ",
            sizes.shape().DebugString())),
        def());
  }
  const int32_t* v = sizes.data<int32_t>();
  for (int i = 0; i < 4; ++i) {
    if (v[i] < 0) {
      return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                "orig_input_shape must not be negative, got ",
                                sizes.SummarizeValue())),
                            def());
    }
  }
  absl::StatusOr<TensorShape> orig_input = TensorShape::Build({v[0], v[1], v[2], v[3]});
  if (!orig_input.ok()) {
    return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                              "orig_input_shape: ", orig_input.status().message())),
                          def());
  }
  absl::StatusOr<functor::Pool2DGeometry> g = Geometry(*orig_input);
  if (!g.ok()) return g.status();
  if (absl::Status s =
          CheckPooledShape("grad", ctx->input(1), *orig_input, ImageShape(Pool2DOutputShape(*g)));
      !s.ok()) {
    return s;
  }
  return g;
}

absl::StatusOr<functor::Pool2DGeometry> Pool2DOpBase::Geometry(const TensorShape& input) const {
  absl::StatusOr<functor::Pool2DGeometry> g = MakePool2DGeometry(params_, input);
  if (!g.ok()) return AttachNodeName(g.status(), def());
  return g;
}

absl::Status Pool2DOpBase::CheckPooledShape(absl::string_view name, const Tensor& tensor,
                                            const TensorShape& orig_input,
                                            const TensorShape& pooled) const {
  if (tensor.shape() == pooled) return absl::OkStatus();
  return AttachNodeName(
      absl::InvalidArgumentError(absl::StrCat(
          name, " has shape ", tensor.shape().DebugString(), " but pooling orig_input of shape ",
          orig_input.DebugString(), " gives ", pooled.DebugString())),
      def());
}

}  // namespace minitf
