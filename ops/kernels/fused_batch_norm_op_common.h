// What every device's FusedBatchNorm / FusedBatchNormV3 and
// FusedBatchNormGrad / FusedBatchNormGradV3 kernel shares: the attrs read
// once when the kernel is built, and the checks of the inputs, which give
// the layout the arithmetic walks. Subclasses allocate and compute.
//
//   absl::StatusOr<BatchNormLayout> layout = ForwardLayoutOf(ctx);
//   OP_REQUIRES_OK(ctx, layout.status());
//   // element (o, c, i) of x is x[(o * channels + c) * inner + i]
//
// Errors are InvalidArgument naming the node and the input at fault, with
// TensorFlow's wording ("scale must have the same number of elements as
// the channels of x, got 3 and 4"); data_format other than NHWC and NCHW
// fails at construction.
#ifndef MINITF_OPS_KERNELS_FUSED_BATCH_NORM_OP_COMMON_H_
#define MINITF_OPS_KERNELS_FUSED_BATCH_NORM_OP_COMMON_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf {

// A 4-D x seen as [outer, channels, inner]: NHWC is [N*H*W, C, 1], NCHW is
// [N, C, H*W]. The per-channel statistics reduce over outer and inner.
struct BatchNormLayout {
  int64_t outer = 0;
  int64_t channels = 0;
  int64_t inner = 1;

  // The number of elements each channel's statistics are taken over.
  int64_t per_channel() const { return outer * inner; }
};

class FusedBatchNormOpBase : public OpKernel {
 public:
  // Reads epsilon, exponential_avg_factor (forward ops), data_format and
  // is_training.
  explicit FusedBatchNormOpBase(OpKernelConstruction* ctx);

 protected:
  // Forward: x (0) 4-D; scale (1), offset (2), mean (3), variance (4) 1-D;
  // scale and offset of x's channel count, and mean and variance too where
  // they are read (inference, or exponential_avg_factor != 1).
  absl::StatusOr<BatchNormLayout> ForwardLayoutOf(OpKernelContext* ctx) const;

  // Gradient: y_backprop (0) and x (1) 4-D of one shape; scale (2),
  // reserve_space_1 (3) and reserve_space_2 (4) 1-D of x's channel count.
  absl::StatusOr<BatchNormLayout> GradLayoutOf(OpKernelContext* ctx) const;

  // The forward outputs: y of x's shape, then batch_mean, batch_variance,
  // reserve_space_1 and reserve_space_2 of [channels] in out[0..4]; and,
  // when the op has it, reserve_space_3, a scalar, in *reserve_3 (else
  // nullptr). The caller writes them.
  static absl::Status AllocateForwardOutputs(OpKernelContext* ctx, const BatchNormLayout& layout,
                                             Tensor* out[5], Tensor** reserve_3);
  // The gradient's outputs: x_backprop of x's shape, scale_backprop and
  // offset_backprop of [channels] in out[0..2]; reserve_space_4/5 empty, as
  // TensorFlow writes them.
  static absl::Status AllocateGradOutputs(OpKernelContext* ctx, const BatchNormLayout& layout,
                                          Tensor* out[3]);

  // Constant after construction.
  float epsilon_ = 0.0001f;
  float exponential_avg_factor_ = 1.0f;
  bool is_training_ = true;
  bool nchw_ = false;

 private:
  BatchNormLayout LayoutOf(const TensorShape& x) const;
  // InvalidArgument naming the node unless `t` is 1-D.
  absl::Status CheckVector(const Tensor& t, absl::string_view name) const;
  // InvalidArgument naming the node unless `t` has `channels` elements.
  absl::Status CheckChannels(const Tensor& t, absl::string_view name, int64_t channels,
                             absl::string_view prefix = "") const;
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_FUSED_BATCH_NORM_OP_COMMON_H_
