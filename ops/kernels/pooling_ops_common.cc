#include "ops/kernels/pooling_ops_common.h"

#include "absl/strings/str_cat.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {

Pool2DOpBase::Pool2DOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  absl::StatusOr<Pool2DParameters> params = ReadPool2DParameters(ctx->def());
  OP_REQUIRES_OK(ctx, params.status());
  params_ = *params;
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
  const TensorShape pooled = Pool2DOutputShape(*g);
  if (absl::Status s = CheckPooledShape("orig_output", ctx->input(1), orig_input, pooled);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckPooledShape("grad", ctx->input(2), orig_input, pooled); !s.ok()) {
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
                                            const Tensor& orig_input,
                                            const TensorShape& pooled) const {
  if (tensor.shape() == pooled) return absl::OkStatus();
  return AttachNodeName(
      absl::InvalidArgumentError(absl::StrCat(
          name, " has shape ", tensor.shape().DebugString(), " but pooling orig_input of shape ",
          orig_input.shape().DebugString(), " gives ", pooled.DebugString())),
      def());
}

}  // namespace minitf
