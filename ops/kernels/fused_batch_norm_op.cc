// Kernels: FusedBatchNorm, FusedBatchNormV3, their gradients and the
// remapper's _FusedBatchNormEx, for float, NHWC and NCHW, on the CPU and on
// CUDA GPUs (fused_batch_norm_op_gpu.cu).
// Every device reads the attrs and checks the inputs the same way
// (FusedBatchNormOpBase), allocates the same outputs and fills them the
// same way when x is empty; only the arithmetic differs. Both walk x as
// [outer, channels, inner] (BatchNormLayout) and take each channel's sums
// in double: on the CPU over the intra-op pool, deterministic for any
// thread count (fused_batch_norm_functors.h); on CUDA one block folds each
// channel, so both devices agree to float rounding.
//
// What the forward op stores for its gradient, as TensorFlow's CPU kernel:
// reserve_space_1 = the batch mean, reserve_space_2 = the biased batch
// variance (not cuDNN's inverse standard deviation); FusedBatchNormV3's
// reserve_space_3 is a scalar 0. In inference the reserve spaces hold the
// given mean and variance (TensorFlow leaves them unwritten on the CPU).
// The gradient's reserve_space_4/5 are empty, as TensorFlow writes them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ops/kernels/fused_batch_norm_functors.h"
#include "platform/status_macros.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/op_scratch_allocator.h"
#include "ops/kernels/fill_ops_gpu.h"
#include "ops/kernels/fused_batch_norm_op_gpu.h"
#endif

namespace minitf {
namespace {

using functor::BatchNormLayout;
using functor::ForwardArgs;
using functor::GradArgs;


// What every device's FusedBatchNorm / FusedBatchNormV3 and
// FusedBatchNormGrad / FusedBatchNormGradV3 kernel shares: the attrs read
// once when the kernel is built, the checks of the inputs, which give the
// layout the arithmetic walks, and the allocation of the outputs.
//
// Errors are InvalidArgument naming the node and the input at fault, with
// TensorFlow's wording ("scale must have the same number of elements as
// the channels of x, got 3 and 4"); data_format other than NHWC and NCHW
// fails at construction.
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


// FusedBatchNorm (five outputs) and FusedBatchNormV3 (six). `Device`
// supplies only
//   static absl::Status Fill(OpKernelContext*, float value, Tensor* t);  // float t
//   static absl::Status Forward(OpKernelContext*, const BatchNormLayout&, float epsilon,
//                               float exponential_avg_factor, bool is_training,
//                               const ForwardArgs&);  // REQUIRES: x not empty.
template <typename Device>
class FusedBatchNormOp : public FusedBatchNormOpBase {
 public:
  using FusedBatchNormOpBase::FusedBatchNormOpBase;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<BatchNormLayout> layout = ForwardLayoutOf(ctx);
    OP_REQUIRES_OK(ctx, layout.status());
    const Tensor& x = ctx->input(0);
    Tensor* out[5] = {};
    Tensor* reserve_3 = nullptr;
    OP_REQUIRES_OK(ctx, AllocateForwardOutputs(ctx, *layout, out, &reserve_3));
    if (reserve_3 != nullptr) OP_REQUIRES_OK(ctx, Device::Fill(ctx, 0.0f, reserve_3));
    if (x.NumElements() == 0) {
      // No statistics: NaN, as in TensorFlow.
      for (int i = 1; i < 5; ++i) {
        OP_REQUIRES_OK(ctx, Device::Fill(ctx, std::numeric_limits<float>::quiet_NaN(), out[i]));
      }
      return;
    }
    ForwardArgs args{x.data<float>(),          ctx->input(1).data<float>(),
                           ctx->input(2).data<float>(), ctx->input(3).data<float>(),
                           ctx->input(4).data<float>(), out[0]->data<float>(),
                           out[1]->data<float>(),      out[2]->data<float>(),
                           out[3]->data<float>(),      out[4]->data<float>()};
    args.relu = relu_;
    if (side_input_) {
      const Tensor& side = ctx->input(5);
      OP_REQUIRES(ctx, side.shape() == x.shape(),
                  AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                     "side_input must have x's shape ", x.shape().DebugString(),
                                     ", got ", side.shape().DebugString())),
                                 def()));
      args.side_input = side.data<float>();
    }
    OP_REQUIRES_OK(ctx, Device::Forward(ctx, *layout, epsilon_, exponential_avg_factor_,
                                        is_training_, args));
  }

 protected:
  // _FusedBatchNormEx's activation and side input (input 5); constant after
  // construction.
  bool relu_ = false;
  bool side_input_ = false;
};

// _FusedBatchNormEx (the remapper's FusedBatchNormV3 (+ Add) + Relu): the
// forward pass with the side input added and the Relu applied to each block
// of y as it is written.
template <typename Device>
class FusedBatchNormExOp : public FusedBatchNormOp<Device> {
 public:
  explicit FusedBatchNormExOp(OpKernelConstruction* ctx) : FusedBatchNormOp<Device>(ctx) {
    std::string mode;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("activation_mode", &mode));
    OP_REQUIRES(ctx, mode == "Identity" || mode == "Relu",
                absl::UnimplementedError(absl::StrCat(
                    "activation_mode '", mode, "' is not one of Identity, Relu")));
    int64_t side_inputs = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_side_inputs", &side_inputs));
    OP_REQUIRES(ctx, side_inputs == 0 || side_inputs == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "num_side_inputs must be 0 or 1 (an Add before the activation), got ",
                    side_inputs)));
    this->relu_ = mode == "Relu";
    this->side_input_ = side_inputs == 1;
  }
};

// FusedBatchNormGrad and FusedBatchNormGradV3 (whose reserve_space_3 is
// not read). `Device` supplies Fill, as above, and
//   static absl::Status Backward(OpKernelContext*, const BatchNormLayout&, float epsilon,
//                                bool is_training, const GradArgs&);  // REQUIRES: x not empty.
template <typename Device>
class FusedBatchNormGradOp : public FusedBatchNormOpBase {
 public:
  using FusedBatchNormOpBase::FusedBatchNormOpBase;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<BatchNormLayout> layout = GradLayoutOf(ctx);
    OP_REQUIRES_OK(ctx, layout.status());
    const Tensor& x = ctx->input(1);
    Tensor* out[3] = {};
    OP_REQUIRES_OK(ctx, AllocateGradOutputs(ctx, *layout, out));
    if (x.NumElements() == 0) {
      OP_REQUIRES_OK(ctx, Device::Fill(ctx, 0.0f, out[1]));
      OP_REQUIRES_OK(ctx, Device::Fill(ctx, 0.0f, out[2]));
      return;
    }
    const GradArgs args{ctx->input(0).data<float>(), x.data<float>(),
                        ctx->input(2).data<float>(), ctx->input(3).data<float>(),
                        ctx->input(4).data<float>(), out[0]->data<float>(),
                        out[1]->data<float>(),       out[2]->data<float>()};
    OP_REQUIRES_OK(ctx, Device::Backward(ctx, *layout, epsilon_, is_training_, args));
  }
};

struct CpuBatchNorm {
  static absl::Status Fill(OpKernelContext*, float value, Tensor* t) {
    t->flat<float>().setConstant(value);
    return absl::OkStatus();
  }

  static absl::Status Forward(OpKernelContext* ctx, const BatchNormLayout& layout, float epsilon,
                              float exponential_avg_factor, bool is_training,
                              const ForwardArgs& args) {
    if (is_training) {
      BatchNormTraining(ctx->eigen_cpu_device(), layout, epsilon, exponential_avg_factor, args);
    } else {
      BatchNormInference(ctx->eigen_cpu_device(), layout, epsilon, args);
    }
    return absl::OkStatus();
  }

  static absl::Status Backward(OpKernelContext* ctx, const BatchNormLayout& layout,
                               float epsilon, bool is_training, const GradArgs& args) {
    BatchNormGrad(ctx->eigen_cpu_device(), layout, epsilon, is_training, args);
    return absl::OkStatus();
  }
};

REGISTER_KERNEL_BUILDER(Name("FusedBatchNorm").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        FusedBatchNormOp<CpuBatchNorm>);
REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNormV3").Device(DEVICE_CPU).TypeConstraint<float>("T").TypeConstraint<float>(
        "U"),
    FusedBatchNormOp<CpuBatchNorm>);
REGISTER_KERNEL_BUILDER(Name("_FusedBatchNormEx")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U"),
                        FusedBatchNormExOp<CpuBatchNorm>);
REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGrad").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        FusedBatchNormGradOp<CpuBatchNorm>);
REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U"),
                        FusedBatchNormGradOp<CpuBatchNorm>);

#ifdef MINITF_WITH_CUDA
gpu::BatchNormDims DimsOf(const BatchNormLayout& l) {
  return {.outer = l.outer, .channels = l.channels, .inner = l.inner};
}

struct CudaBatchNorm {
  // Zeros by cudaMemsetAsync, other values by the fill kernel.
  static absl::Status Fill(OpKernelContext* ctx, float value, Tensor* t) {
    if (value == 0.0f) return ZeroOnComputeStream(ctx, t);
    return LaunchOnComputeStream(ctx, "Fill", [&](cudaStream_t stream) {
      return gpu::LaunchFill<float>(stream, t->NumElements(), value, t->data<float>());
    });
  }

  static absl::Status Forward(OpKernelContext* ctx, const BatchNormLayout& layout, float epsilon,
                              float exponential_avg_factor, bool is_training,
                              const ForwardArgs& a) {
    const gpu::BatchNormForward args{a.x,
                                     a.scale,
                                     a.offset,
                                     a.mean,
                                     a.variance,
                                     a.y,
                                     a.batch_mean,
                                     a.batch_variance,
                                     a.reserve_1,
                                     a.reserve_2,
                                     a.side_input,
                                     a.relu};
    // From the device's allocator, so a memory limit counts it.
    OpScratchAllocator scratch(ctx);
    MINITF_ASSIGN_OR_RETURN(se::DeviceMemoryBase workspace,
                            scratch.AllocateBytes(gpu::BatchNormScratchBytes(DimsOf(layout))));
    return LaunchOnComputeStream(ctx, "BatchNormForward", [&](cudaStream_t stream) {
      return gpu::LaunchBatchNormForward(stream, DimsOf(layout), epsilon, exponential_avg_factor,
                                         is_training, args, workspace.opaque());
    });
  }

  static absl::Status Backward(OpKernelContext* ctx, const BatchNormLayout& layout,
                               float epsilon, bool is_training, const GradArgs& a) {
    const gpu::BatchNormBackward args{a.y_backprop,     a.x,
                                      a.scale,          a.mean,
                                      a.variance,       a.x_backprop,
                                      a.scale_backprop, a.offset_backprop};
    // From the device's allocator, so a memory limit counts it.
    OpScratchAllocator scratch(ctx);
    MINITF_ASSIGN_OR_RETURN(se::DeviceMemoryBase workspace,
                            scratch.AllocateBytes(gpu::BatchNormScratchBytes(DimsOf(layout))));
    return LaunchOnComputeStream(ctx, "BatchNormBackward", [&](cudaStream_t stream) {
      return gpu::LaunchBatchNormBackward(stream, DimsOf(layout), epsilon, is_training, args,
                                          workspace.opaque());
    });
  }
};

REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNorm").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    FusedBatchNormOp<CudaBatchNorm>);
REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV3")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U"),
                        FusedBatchNormOp<CudaBatchNorm>);
REGISTER_KERNEL_BUILDER(Name("_FusedBatchNormEx")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U"),
                        FusedBatchNormExOp<CudaBatchNorm>);
REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNormGrad").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    FusedBatchNormGradOp<CudaBatchNorm>);
REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV3")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U"),
                        FusedBatchNormGradOp<CudaBatchNorm>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
