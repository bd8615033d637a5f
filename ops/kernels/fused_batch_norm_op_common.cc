#include "ops/kernels/fused_batch_norm_op_common.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "platform/status_macros.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {

FusedBatchNormOpBase::FusedBatchNormOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
  if (HasNodeAttr(ctx->def(), "exponential_avg_factor")) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("exponential_avg_factor", &exponential_avg_factor_));
  }
  OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
  std::string data_format;
  OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
  if (data_format == "NDHWC" || data_format == "NCDHW") {
    OP_REQUIRES(ctx, false,
                absl::UnimplementedError(absl::StrCat(
                    "data_format '", data_format,
                    "' (5-D batch normalization) is not supported; use NHWC or NCHW")));
  }
  OP_REQUIRES(ctx, data_format == "NHWC" || data_format == "NCHW",
              absl::InvalidArgumentError(absl::StrCat("invalid data_format '", data_format,
                                                      "'; expected 'NHWC' or 'NCHW'")));
  nchw_ = data_format == "NCHW";
}

BatchNormLayout FusedBatchNormOpBase::LayoutOf(const TensorShape& x) const {
  BatchNormLayout layout;
  if (nchw_) {
    layout.outer = x.dim_size(0);
    layout.channels = x.dim_size(1);
    layout.inner = x.dim_size(2) * x.dim_size(3);
  } else {
    layout.outer = x.dim_size(0) * x.dim_size(1) * x.dim_size(2);
    layout.channels = x.dim_size(3);
    layout.inner = 1;
  }
  return layout;
}

absl::Status FusedBatchNormOpBase::CheckVector(const Tensor& t, absl::string_view name) const {
  if (t.dims() == 1) return absl::OkStatus();
  return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                            name, " must be 1-dimensional, got shape ", t.shape().DebugString())),
                        def());
}

absl::Status FusedBatchNormOpBase::CheckChannels(const Tensor& t, absl::string_view name,
                                                 int64_t channels,
                                                 absl::string_view prefix) const {
  if (t.NumElements() == channels) return absl::OkStatus();
  return AttachNodeName(
      absl::InvalidArgumentError(absl::StrCat(prefix, name,
                                              " must have the same number of elements as the "
                                              "channels of x, got ",
                                              t.NumElements(), " and ", channels)),
      def());
}

absl::StatusOr<BatchNormLayout> FusedBatchNormOpBase::ForwardLayoutOf(
    OpKernelContext* ctx) const {
  const Tensor& x = ctx->input(0);
  if (x.dims() != 4) {
    return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                              "x must be 4-dimensional, got shape ", x.shape().DebugString())),
                          def());
  }
  static constexpr const char* kVectors[] = {"scale", "offset", "mean", "variance"};
  for (int i = 0; i < 4; ++i) {
    if (absl::Status s = CheckVector(ctx->input(i + 1), kVectors[i]); !s.ok()) return s;
  }
  const BatchNormLayout layout = LayoutOf(x.shape());
  for (int i = 0; i < 2; ++i) {
    if (absl::Status s = CheckChannels(ctx->input(i + 1), kVectors[i], layout.channels);
        !s.ok()) {
      return s;
    }
  }
  if (!is_training_ || exponential_avg_factor_ != 1.0f) {
    const char* prefix =
        is_training_ ? "When exponential_avg_factor != 1, " : "When is_training=false, ";
    for (int i = 2; i < 4; ++i) {
      if (absl::Status s = CheckChannels(ctx->input(i + 1), kVectors[i], layout.channels, prefix);
          !s.ok()) {
        return s;
      }
    }
  }
  return layout;
}

absl::StatusOr<BatchNormLayout> FusedBatchNormOpBase::GradLayoutOf(OpKernelContext* ctx) const {
  const Tensor& y_backprop = ctx->input(0);
  const Tensor& x = ctx->input(1);
  if (x.dims() != 4 || y_backprop.shape() != x.shape()) {
    return AttachNodeName(
        absl::InvalidArgumentError(absl::StrCat(
            "x and y_backprop must be 4-dimensional and of the same shape, but x has shape ",
            x.shape().DebugString(), " and y_backprop has shape ",
            y_backprop.shape().DebugString())),
        def());
  }
  static constexpr const char* kVectors[] = {"scale", "reserve_space_1", "reserve_space_2"};
  const BatchNormLayout layout = LayoutOf(x.shape());
  for (int i = 0; i < 3; ++i) {
    if (absl::Status s = CheckVector(ctx->input(i + 2), kVectors[i]); !s.ok()) return s;
    if (absl::Status s = CheckChannels(ctx->input(i + 2), kVectors[i], layout.channels);
        !s.ok()) {
      return s;
    }
  }
  return layout;
}

absl::Status FusedBatchNormOpBase::AllocateForwardOutputs(OpKernelContext* ctx,
                                                          const BatchNormLayout& layout,
                                                          Tensor* out[5], Tensor** reserve_3) {
  const TensorShape channels({layout.channels});
  MINITF_RETURN_IF_ERROR(ctx->allocate_output(0, ctx->input(0).shape(), &out[0]));
  for (int i = 1; i < 5; ++i) MINITF_RETURN_IF_ERROR(ctx->allocate_output(i, channels, &out[i]));
  *reserve_3 = nullptr;
  if (ctx->num_outputs() > 5) {
    MINITF_RETURN_IF_ERROR(ctx->allocate_output(5, TensorShape(), reserve_3));
  }
  return absl::OkStatus();
}

absl::Status FusedBatchNormOpBase::AllocateGradOutputs(OpKernelContext* ctx,
                                                       const BatchNormLayout& layout,
                                                       Tensor* out[3]) {
  const TensorShape channels({layout.channels});
  MINITF_RETURN_IF_ERROR(ctx->allocate_output(0, ctx->input(1).shape(), &out[0]));
  MINITF_RETURN_IF_ERROR(ctx->allocate_output(1, channels, &out[1]));
  MINITF_RETURN_IF_ERROR(ctx->allocate_output(2, channels, &out[2]));
  Tensor* empty = nullptr;
  MINITF_RETURN_IF_ERROR(ctx->allocate_output(3, TensorShape({0}), &empty));
  return ctx->allocate_output(4, TensorShape({0}), &empty);
}

}  // namespace minitf
