#include "ops/kernels/bias_add_op_common.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {

absl::Status CheckBiasAddDataFormat(OpKernelConstruction* ctx) {
  std::string data_format = "NHWC";
  if (HasNodeAttr(ctx->def(), "data_format")) {
    if (absl::Status s = ctx->GetAttr("data_format", &data_format); !s.ok()) return s;
  }
  if (data_format == "NHWC") return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("data_format '", data_format,
                                               "' is not supported: BiasAdd only supports NHWC"));
}

absl::StatusOr<int64_t> BiasAddChannels(const Tensor& value, const Tensor& bias,
                                        const OpKernel& op) {
  if (value.dims() < 2) {
    return AttachNodeName(absl::InvalidArgumentError(
                              absl::StrCat("value must have rank at least 2, got shape ",
                                           value.shape().DebugString())),
                          op.def());
  }
  const int64_t channels = value.dim_size(value.dims() - 1);
  if (bias.dims() != 1 || bias.dim_size(0) != channels) {
    return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                              "bias must be a vector of the last dimension of value: "
                              "value has shape ",
                              value.shape().DebugString(), ", bias has shape ",
                              bias.shape().DebugString())),
                          op.def());
  }
  return channels;
}

absl::StatusOr<bool> BiasAddGradIsNCHW(const std::string& data_format, const OpKernel& op) {
  if (data_format == "NHWC") return false;
  if (data_format == "NCHW") return true;
  return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                            "data_format '", data_format,
                            "' is not supported: BiasAddGrad takes 'NHWC' or 'NCHW'")),
                        op.def());
}

absl::StatusOr<BiasGradView> BiasAddGradView(const Tensor& out_backprop, bool nchw,
                                             const OpKernel& op) {
  const int min_rank = nchw ? 3 : 2;
  if (out_backprop.dims() < min_rank) {
    return AttachNodeName(
        absl::InvalidArgumentError(absl::StrCat(
            "out_backprop must have rank at least ", min_rank, " under ", nchw ? "NCHW" : "NHWC",
            ", got shape ", out_backprop.shape().DebugString())),
        op.def());
  }
  const int channel_dim = nchw ? 1 : out_backprop.dims() - 1;
  BiasGradView view;
  for (int d = 0; d < out_backprop.dims(); ++d) {
    const int64_t size = out_backprop.dim_size(d);
    if (d < channel_dim) view.outer *= size;
    if (d == channel_dim) view.channels = size;
    if (d > channel_dim) view.inner *= size;
  }
  return view;
}

BiasAddGradOpBase::BiasAddGradOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  std::string data_format;
  OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
  absl::StatusOr<bool> nchw = BiasAddGradIsNCHW(data_format, *this);
  OP_REQUIRES_OK(ctx, nchw.status());
  nchw_ = *nchw;
}

}  // namespace minitf
