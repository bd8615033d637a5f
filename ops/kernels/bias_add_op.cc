// Kernels: BiasAdd and BiasAddGrad on CPU (float, double, int32, int64) and
// on CUDA GPUs (float), NHWC and NCHW. BiasAdd adds the bias vector along
// `value`'s channel dimension (the last under NHWC, dimension 1 under NCHW;
// on CUDA a broadcast Add, cwise_ops_gpu.h). BiasAddGrad sums out_backprop
// over every dimension but the channel one; on CUDA with the reduction kernel
// (reduction_ops_gpu.h), in two passes when there are dimensions after the
// channels.
#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "ops/kernels/cpu_column_sum.h"
#include "ops/kernels/sum_accumulator.h"
#include "platform/status_macros.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cwise_ops_gpu.h"
#include "ops/kernels/reduction_ops_gpu.h"
#endif

namespace minitf {
namespace {

// out_backprop (or BiasAdd's value) seen as [outer, channels, inner].
struct BiasGradView {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
};

// `value` seen as [outer, channels, inner] around its channel dimension
// (dimension 1 under NCHW, the last under NHWC).
BiasGradView ChannelView(const Tensor& value, bool nchw) {
  const int channel_dim = nchw ? 1 : value.dims() - 1;
  BiasGradView view;
  for (int d = 0; d < value.dims(); ++d) {
    const int64_t size = value.dim_size(d);
    if (d < channel_dim) view.outer *= size;
    if (d == channel_dim) view.channels = size;
    if (d > channel_dim) view.inner *= size;
  }
  return view;
}

// Whether BiasAdd's data_format is "NCHW" (true) or "NHWC" (false, also
// when the attr is absent, as in graphs older than it); InvalidArgument
// naming the format otherwise. Errors are prefixed with the node by
// CreateOpKernel.
absl::StatusOr<bool> BiasAddIsNCHW(OpKernelConstruction* ctx) {
  std::string data_format = "NHWC";
  if (HasNodeAttr(ctx->def(), "data_format")) {
    if (absl::Status s = ctx->GetAttr("data_format", &data_format); !s.ok()) return s;
  }
  if (data_format == "NHWC") return false;
  if (data_format == "NCHW") return true;
  return absl::InvalidArgumentError(absl::StrCat(
      "data_format '", data_format, "' is not supported: BiasAdd takes 'NHWC' or 'NCHW'"));
}

// value seen around its channel dimension; InvalidArgument naming `op`'s
// node unless value has rank at least 2 and bias is a vector as long as
// that dimension (as TensorFlow's kernel, which takes a matrix under NCHW
// too: its channels are its columns).
absl::StatusOr<BiasGradView> BiasAddView(const Tensor& value, const Tensor& bias, bool nchw,
                                         const OpKernel& op) {
  if (value.dims() < 2) {
    return AttachNodeName(absl::InvalidArgumentError(
                              absl::StrCat("value must have rank at least 2, got shape ",
                                           value.shape().DebugString())),
                          op.def());
  }
  const BiasGradView view = ChannelView(value, nchw);
  if (bias.dims() != 1 || bias.dim_size(0) != view.channels) {
    return AttachNodeName(
        absl::InvalidArgumentError(absl::StrCat(
            "bias must be a vector of the channel dimension of value (",
            nchw ? "dimension 1 under NCHW" : "the last under NHWC", "): value has shape ",
            value.shape().DebugString(), ", bias has shape ", bias.shape().DebugString())),
        op.def());
  }
  return view;
}

// The skeleton every device shares: data_format read when built, value
// and bias checked, the output allocated (in value's buffer when nothing
// else holds it), an empty one returned; `Device` supplies only
//   static absl::Status Add(OpKernelContext*, const Tensor& value,
//                           const Tensor& bias, const BiasGradView& view,
//                           Tensor* output);
// with value seen as [outer, channels, inner] (inner is 1 under NHWC) and
// bias added along the channels.
template <typename Device>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::StatusOr<bool> nchw = BiasAddIsNCHW(ctx);
    OP_REQUIRES_OK(ctx, nchw.status());
    nchw_ = *nchw;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    absl::StatusOr<BiasGradView> view = BiasAddView(value, bias, nchw_, *this);
    OP_REQUIRES_OK(ctx, view.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, value.shape(), &output));
    if (value.NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Device::Add(ctx, value, bias, *view, output));
  }

 private:
  bool nchw_ = false;  // Constant after construction.
};

// Whether `data_format` is "NCHW" (true) or "NHWC" (false); InvalidArgument
// naming the node and the format for any other.
absl::StatusOr<bool> BiasAddGradIsNCHW(const std::string& data_format, const OpKernel& op) {
  if (data_format == "NHWC") return false;
  if (data_format == "NCHW") return true;
  return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                            "data_format '", data_format,
                            "' is not supported: BiasAddGrad takes 'NHWC' or 'NCHW'")),
                        op.def());
}

// InvalidArgument naming the node when out_backprop's rank is too low for
// the layout (2 under NHWC, 3 under NCHW).
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
  return ChannelView(out_backprop, nchw);
}

// The skeleton every device shares: data_format read when built,
// out_backprop checked and viewed, the [channels] output allocated (and
// zeroed when out_backprop is empty, the sum of nothing); `Device` supplies
// only
//   static absl::Status SetZero(OpKernelContext*, Tensor* output);
//   static absl::Status SumGrad(OpKernelContext*, const Tensor& out_backprop,
//                               const BiasGradView& view, Tensor* output);
// where SumGrad sums a non-empty out_backprop over outer and inner.
template <typename Device>
class BiasAddGradOp : public OpKernel {
 public:
  explicit BiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string data_format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
    absl::StatusOr<bool> nchw = BiasAddGradIsNCHW(data_format, *this);
    OP_REQUIRES_OK(ctx, nchw.status());
    nchw_ = *nchw;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& out_backprop = ctx->input(0);
    absl::StatusOr<BiasGradView> view = BiasAddGradView(out_backprop, nchw_, *this);
    OP_REQUIRES_OK(ctx, view.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({view->channels}), &output));
    if (view->channels == 0) return;
    if (out_backprop.NumElements() == 0) {
      OP_REQUIRES_OK(ctx, Device::SetZero(ctx, output));
      return;
    }
    OP_REQUIRES_OK(ctx, Device::SumGrad(ctx, out_backprop, *view, output));
  }

 private:
  bool nchw_ = false;  // Constant after construction.
};

template <typename T>
struct CpuBiasAdd {
  static absl::Status Add(OpKernelContext* ctx, const Tensor& value, const Tensor& bias,
                          const BiasGradView& view, Tensor* output) {
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    if (view.inner == 1) {
      // [rows, channels] plus bias as one row repeated `rows` times.
      const int64_t rows = view.outer;
      const Eigen::DSizes<Eigen::DenseIndex, 2> one_row(1, view.channels);
      const Eigen::DSizes<Eigen::DenseIndex, 2> repeat_rows(rows, 1);
      output->shaped<T, 2>({rows, view.channels}).device(d) =
          value.shaped<T, 2>({rows, view.channels}) +
          bias.vec<T>().reshape(one_row).broadcast(repeat_rows);
      return absl::OkStatus();
    }
    // NCHW: bias as [1, channels, 1] repeated over outer and inner.
    const Eigen::DSizes<Eigen::DenseIndex, 3> column(1, view.channels, 1);
    const Eigen::DSizes<Eigen::DenseIndex, 3> repeat(view.outer, 1, view.inner);
    output->shaped<T, 3>({view.outer, view.channels, view.inner}).device(d) =
        value.shaped<T, 3>({view.outer, view.channels, view.inner}) +
        bias.vec<T>().reshape(column).broadcast(repeat);
    return absl::OkStatus();
  }

  static absl::Status SetZero(OpKernelContext* ctx, Tensor* output) {
    output->vec<T>().setZero();
    return absl::OkStatus();
  }

  static absl::Status SumGrad(OpKernelContext* ctx, const Tensor& out_backprop,
                              const BiasGradView& view, Tensor* output) {
    // Each channel's values add up in SumAccumulator<T> (double for float);
    // the channels are the columns of the NHWC layout's [rows, channels].
    if constexpr (std::is_floating_point_v<T>) {
      if (view.inner == 1) {
        functor::SumMiddleAxis<T>(ctx->eigen_cpu_device(), out_backprop.data<T>(), 1,
                                  view.outer, view.channels, output->data<T>());
        return absl::OkStatus();
      }
    }
    const auto in = out_backprop.shaped<T, 3>({view.outer, view.channels, view.inner});
    const Eigen::array<Eigen::DenseIndex, 2> outer_and_inner = {0, 2};
    output->vec<T>().device(ctx->eigen_cpu_device()) =
        in.template cast<SumAccumulator<T>>().sum(outer_and_inner).template cast<T>();
    return absl::OkStatus();
  }
};

#define MINITF_REGISTER_BIAS_ADD(T)                                                      \
  REGISTER_KERNEL_BUILDER(Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
                          BiasAddOp<CpuBiasAdd<T>>);                                     \
  REGISTER_KERNEL_BUILDER(Name("BiasAddGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BiasAddGradOp<CpuBiasAdd<T>>)
MINITF_REGISTER_BIAS_ADD(float);
MINITF_REGISTER_BIAS_ADD(double);
MINITF_REGISTER_BIAS_ADD(int32_t);
MINITF_REGISTER_BIAS_ADD(int64_t);
#undef MINITF_REGISTER_BIAS_ADD

#ifdef MINITF_WITH_CUDA
struct CudaBiasAdd {
  static absl::Status Add(OpKernelContext* ctx, const Tensor& value, const Tensor& bias,
                          const BiasGradView& view, Tensor* output) {
    // value as [outer, channels, inner]; the same bias element for every
    // outer and inner position of its channel.
    gpu::BroadcastLayout layout;
    layout.rank = 3;
    layout.result_dims[0] = view.outer;
    layout.result_dims[1] = view.channels;
    layout.result_dims[2] = view.inner;
    layout.x_strides[0] = view.channels * view.inner;
    layout.x_strides[1] = view.inner;
    layout.x_strides[2] = 1;
    layout.y_strides[0] = 0;
    layout.y_strides[1] = 1;
    layout.y_strides[2] = 0;
    return LaunchOnComputeStream(ctx, "BiasAdd", [&](cudaStream_t stream) {
      return gpu::LaunchBinaryOp(stream, gpu::BinaryOpKind::kAdd, layout, value.data<float>(),
                                 bias.data<float>(), output->data<float>());
    });
  }

  static absl::Status SetZero(OpKernelContext* ctx, Tensor* output) {
    return ZeroOnComputeStream(ctx, output);
  }

  static absl::Status SumGrad(OpKernelContext* ctx, const Tensor& out_backprop,
                              const BiasGradView& view, Tensor* output) {
    const float* rows = out_backprop.data<float>();
    Tensor partial;
    Tensor inner_scratch;
    Tensor outer_scratch;
    if (view.inner > 1) {
      MINITF_RETURN_IF_ERROR(
          ctx->allocate_temp(DT_FLOAT, TensorShape({view.outer, view.channels}), &partial));
      MINITF_RETURN_IF_ERROR(AllocateScratch(
          ctx, gpu::ReduceMiddleScratchBytes(view.outer * view.channels, view.inner, 1),
          &inner_scratch));
    }
    MINITF_RETURN_IF_ERROR(AllocateScratch(
        ctx, gpu::ReduceMiddleScratchBytes(1, view.outer, view.channels), &outer_scratch));
    return LaunchOnComputeStream(ctx, "BiasAddGrad", [&](cudaStream_t stream) {
      if (view.inner > 1) {
        // [outer, channels, inner] -> [outer, channels], then over outer.
        const cudaError_t error = gpu::LaunchReduceMiddle(
            stream, gpu::ReductionKind::kSum, rows, view.outer * view.channels, view.inner, 1,
            1.0f, partial.data<float>(), ScratchOf(inner_scratch));
        if (error != cudaSuccess) return error;
        rows = partial.data<float>();
      }
      return gpu::LaunchReduceMiddle(stream, gpu::ReductionKind::kSum, rows, 1, view.outer,
                                     view.channels, 1.0f, output->data<float>(),
                                     ScratchOf(outer_scratch));
    });
  }
};

REGISTER_KERNEL_BUILDER(
    Name("BiasAdd").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    BiasAddOp<CudaBiasAdd>);
REGISTER_KERNEL_BUILDER(
    Name("BiasAddGrad").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    BiasAddGradOp<CudaBiasAdd>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
