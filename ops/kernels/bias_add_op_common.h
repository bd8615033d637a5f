// The checks every device's BiasAdd and BiasAddGrad kernel makes. BiasAdd:
// when built, that data_format is "NHWC" (the only layout implemented);
// before it adds, that value has rank at least 2 and bias is a vector of
// value's last dimension. BiasAddGrad: data_format is NHWC (channels last,
// rank >= 2) or NCHW (channels at dimension 1, rank >= 3).
//
//   absl::StatusOr<int64_t> channels = BiasAddChannels(value, bias, *this);
//   OP_REQUIRES_OK(ctx, channels.status());
//   // value is [NumElements() / channels, channels]; bias one such row.
//
//   absl::StatusOr<BiasGradView> view = ViewOf(ctx);   // in a BiasAddGradOpBase
//   // out_backprop is [outer, channels, inner]; the output is [channels].
#ifndef MINITF_OPS_KERNELS_BIAS_ADD_OP_COMMON_H_
#define MINITF_OPS_KERNELS_BIAS_ADD_OP_COMMON_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf {

// Unimplemented, naming the attr and its value, unless data_format is NHWC.
// Errors are prefixed with the node by CreateOpKernel.
absl::Status CheckBiasAddDataFormat(OpKernelConstruction* ctx);

// The size of value's last dimension; InvalidArgument naming `op`'s node
// when value or bias has a shape BiasAdd rejects.
absl::StatusOr<int64_t> BiasAddChannels(const Tensor& value, const Tensor& bias,
                                        const OpKernel& op);

// Whether `data_format` is "NCHW" (true) or "NHWC" (false); InvalidArgument
// naming the node and the format for any other.
absl::StatusOr<bool> BiasAddGradIsNCHW(const std::string& data_format, const OpKernel& op);

// out_backprop seen as [outer, channels, inner].
struct BiasGradView {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
};
// InvalidArgument naming the node when out_backprop's rank is too low.
absl::StatusOr<BiasGradView> BiasAddGradView(const Tensor& out_backprop, bool nchw,
                                             const OpKernel& op);

// What every device's BiasAddGrad kernel starts from: data_format read when
// built, and out_backprop (input 0) checked and viewed.
class BiasAddGradOpBase : public OpKernel {
 public:
  explicit BiasAddGradOpBase(OpKernelConstruction* ctx);

 protected:
  absl::StatusOr<BiasGradView> ViewOf(OpKernelContext* ctx) const {
    return BiasAddGradView(ctx->input(0), nchw_, *this);
  }

 private:
  bool nchw_ = false;
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_BIAS_ADD_OP_COMMON_H_
