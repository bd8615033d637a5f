// Kernels: Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter, with HWIO
// filters, on the CPU (float through oneDNN, onednn_conv.h, where it is on;
// double and the rest: the im2col functors of conv_functors.h on the intra-op
// pool) and on CUDA GPUs (float: the executor's DNN plugin, cuDNN). Every
// device reads the window attrs and checks the inputs the same way
// (Conv2DOpBase), allocates the output and skips an empty one; only the
// convolution differs. The convolutions compute in NHWC; under data_format
// NCHW the skeleton transposes the image inputs to NHWC scratch tensors and
// the image output back (image_layout.h). The sizes inputs of the gradients
// (input_sizes, filter_sizes) are int32 in host memory on GPUs. The CUDA
// kernels support dilations of 1 only (the plugin's ConvolutionDescriptor
// carries none): others are Unimplemented. _FusedConv2D (the remapper's
// Conv2D + BiasAdd + activation) runs on both: the convolution, then the bias
// and the activation in one pass (on CUDA, with a Relu, cuDNN's fused
// convolution; otherwise a kernel of its own after cuDNN's convolution,
// fused_bias_activation_gpu.h).
#include <array>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ops/kernels/conv_functors.h"
#include "ops/kernels/fused_bias_activation.h"
#include "ops/kernels/image_layout.h"
#include "ops/kernels/onednn_conv.h"
#include "ops/kernels/onednn_host.h"
#include "ops/kernels/window_geometry.h"
#include "ops/util/window_attrs.h"
#include "platform/logging.h"
#include "platform/status_macros.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/op_scratch_allocator.h"
#include "stream/dnn.h"
#endif

namespace minitf {
namespace {

// What the three ops share on every device, TensorFlow's Conv2DOp<Device, T>
// before it calls its functor: the window attrs read once when the kernel is
// built (then `Device::Check`ed), and the checks of the inputs that give the
// convolution's geometry. `Device` supplies
//   static absl::Status Check(const Conv2DParameters&, absl::string_view op);
//   static absl::Status Transpose(OpKernelContext*, const Tensor& in,
//                                 const std::array<int, 4>& perm, Tensor* out);
// and the convolutions the subclasses below call. Errors are InvalidArgument
// naming the node; the messages are those of MakeConv2DGeometry
// (window_geometry.h) and of the checks below.
template <typename Device>
class Conv2DOpBase : public OpKernel {
 public:
  // Reads strides, padding, data_format and dilations (ReadConv2DParameters).
  explicit Conv2DOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::StatusOr<Conv2DParameters> params = ReadConv2DParameters(ctx->def());
    OP_REQUIRES_OK(ctx, params.status());
    params_ = *params;
    OP_REQUIRES_OK(ctx, Device::Check(params_, ctx->def().op));
  }

 protected:
  bool nchw() const { return params_.nchw; }

  // An NHWC shape (Conv2DOutputShape, Conv2DInputShape) in the layout of
  // the op's images.
  TensorShape ImageShape(const TensorShape& nhwc) const {
    return nchw() ? Permuted(nhwc, kNhwcToNchw) : nhwc;
  }

  // Conv2D: input (0) convolved by filter (1). The output has the shape
  // ImageShape(Conv2DOutputShape(g)).
  absl::StatusOr<functor::Conv2DGeometry> Conv2DGeometryOf(OpKernelContext* ctx) const {
    return Geometry(ctx->input(0).shape(), ctx->input(1).shape());
  }

  // Conv2DBackpropInput: input_sizes (0, int32 in host memory), filter (1)
  // and out_backprop (2), which must have the convolution's output shape.
  // The output (in_backprop) has the shape ImageShape(Conv2DInputShape(g)).
  absl::StatusOr<functor::Conv2DGeometry> BackpropInputGeometryOf(OpKernelContext* ctx) const {
    MINITF_ASSIGN_OR_RETURN(const TensorShape input_shape,
                            ShapeFromSizes(ctx->input(0), "input_sizes"));
    absl::StatusOr<functor::Conv2DGeometry> g = Geometry(input_shape, ctx->input(1).shape());
    if (!g.ok()) return g.status();
    MINITF_RETURN_IF_ERROR(CheckOutBackprop(*g, ctx->input(2)));
    return g;
  }

  // Conv2DBackpropFilter: input (0), filter_sizes (1, int32 in host memory)
  // and out_backprop (2), checked as above. The output (filter_backprop) has
  // the shape Conv2DFilterShape(g).
  absl::StatusOr<functor::Conv2DGeometry> BackpropFilterGeometryOf(OpKernelContext* ctx) const {
    MINITF_ASSIGN_OR_RETURN(const TensorShape filter_shape,
                            ShapeFromSizes(ctx->input(1), "filter_sizes"));
    absl::StatusOr<functor::Conv2DGeometry> g = Geometry(ctx->input(0).shape(), filter_shape);
    if (!g.ok()) return g.status();
    MINITF_RETURN_IF_ERROR(CheckOutBackprop(*g, ctx->input(2)));
    return g;
  }

 private:
  // The convolution of `input` by `filter`; errors name the node.
  absl::StatusOr<functor::Conv2DGeometry> Geometry(const TensorShape& input,
                                                   const TensorShape& filter) const {
    absl::StatusOr<functor::Conv2DGeometry> g = MakeConv2DGeometry(params_, input, filter);
    if (!g.ok()) return AttachNodeName(g.status(), def());
    return g;
  }

  // The shape an int32 sizes input (input_sizes, filter_sizes) holds.
  absl::StatusOr<TensorShape> ShapeFromSizes(const Tensor& sizes, absl::string_view name) const {
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

  // out_backprop must have the shape of the convolution's output.
  absl::Status CheckOutBackprop(const functor::Conv2DGeometry& g,
                                const Tensor& out_backprop) const {
    const TensorShape expected = ImageShape(Conv2DOutputShape(g));
    if (out_backprop.shape() == expected) return absl::OkStatus();
    return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                              "out_backprop has shape ", out_backprop.shape().DebugString(),
                              " but the convolution's output has shape ", expected.DebugString())),
                          def());
  }

  Conv2DParameters params_;  // Constant after construction.
};

// output = conv2d(input, filter), by
//   static absl::Status Device::Convolve(OpKernelContext*, const functor::Conv2DGeometry&,
//                                        const Tensor& input, const Tensor& filter,
//                                        Tensor* output);
template <typename Device>
class Conv2DOp : public Conv2DOpBase<Device> {
 public:
  using Conv2DOpBase<Device>::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<functor::Conv2DGeometry> g = this->Conv2DGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, this->ImageShape(Conv2DOutputShape(*g)), &output));
    if (output->NumElements() == 0) return;
    if (!this->nchw()) {
      OP_REQUIRES_OK(ctx, Device::Convolve(ctx, *g, ctx->input(0), ctx->input(1), output));
      return;
    }
    Tensor input, result;
    OP_REQUIRES_OK(ctx, ImageToNhwc<Device>(ctx, ctx->input(0), &input));
    OP_REQUIRES_OK(ctx, NhwcScratchFor(ctx, *output, &result));
    OP_REQUIRES_OK(ctx, Device::Convolve(ctx, *g, input, ctx->input(1), &result));
    OP_REQUIRES_OK(ctx, ImageFromNhwc<Device>(ctx, result, output));
  }
};

// The gradient of Conv2D with respect to its input, whose shape input_sizes
// gives, by
//   static absl::Status Device::BackpropInput(OpKernelContext*, const functor::Conv2DGeometry&,
//                                             const Tensor& filter, const Tensor& out_backprop,
//                                             Tensor* in_backprop);
template <typename Device>
class Conv2DBackpropInputOp : public Conv2DOpBase<Device> {
 public:
  using Conv2DOpBase<Device>::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<functor::Conv2DGeometry> g = this->BackpropInputGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, this->ImageShape(Conv2DInputShape(*g)), &in_backprop));
    if (in_backprop->NumElements() == 0) return;
    if (!this->nchw()) {
      OP_REQUIRES_OK(ctx,
                     Device::BackpropInput(ctx, *g, ctx->input(1), ctx->input(2), in_backprop));
      return;
    }
    Tensor out_backprop, result;
    OP_REQUIRES_OK(ctx, ImageToNhwc<Device>(ctx, ctx->input(2), &out_backprop));
    OP_REQUIRES_OK(ctx, NhwcScratchFor(ctx, *in_backprop, &result));
    OP_REQUIRES_OK(ctx, Device::BackpropInput(ctx, *g, ctx->input(1), out_backprop, &result));
    OP_REQUIRES_OK(ctx, ImageFromNhwc<Device>(ctx, result, in_backprop));
  }
};

// The gradient of Conv2D with respect to its filter, whose shape
// filter_sizes gives, by
//   static absl::Status Device::BackpropFilter(OpKernelContext*, const functor::Conv2DGeometry&,
//                                              const Tensor& input, const Tensor& out_backprop,
//                                              Tensor* filter_backprop);
template <typename Device>
class Conv2DBackpropFilterOp : public Conv2DOpBase<Device> {
 public:
  using Conv2DOpBase<Device>::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<functor::Conv2DGeometry> g = this->BackpropFilterGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* filter_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, Conv2DFilterShape(*g), &filter_backprop));
    if (filter_backprop->NumElements() == 0) return;
    if (!this->nchw()) {
      OP_REQUIRES_OK(ctx, Device::BackpropFilter(ctx, *g, ctx->input(0), ctx->input(2),
                                                 filter_backprop));
      return;
    }
    Tensor input, out_backprop;
    OP_REQUIRES_OK(ctx, ImageToNhwc<Device>(ctx, ctx->input(0), &input));
    OP_REQUIRES_OK(ctx, ImageToNhwc<Device>(ctx, ctx->input(2), &out_backprop));
    OP_REQUIRES_OK(ctx, Device::BackpropFilter(ctx, *g, input, out_backprop, filter_backprop));
  }
};

// Float through oneDNN where it is on and has a kernel for the convolution
// (onednn_conv.h), with the workspace it asks for; nullopt: not taken (the
// caller uses im2col).
template <typename T>
std::optional<absl::Status> TryOneDnn(OpKernelContext* ctx,
                                      functor::OneDnnConv::Direction direction,
                                      const functor::Conv2DGeometry& g, const T* a, const T* b,
                                      T* out) {
  if constexpr (!std::is_same_v<T, float>) {
    return std::nullopt;
  } else {
    if (!functor::OneDnnEnabled()) return std::nullopt;
    const absl::StatusOr<std::shared_ptr<const functor::OneDnnConv>> conv =
        functor::SharedOneDnnConv(direction, g);
    if (absl::IsUnimplemented(conv.status())) {
      VLOG(1, "{}: {}; im2col instead", ctx->op_kernel().name(), conv.status().message());
      return std::nullopt;
    }
    if (!conv.ok()) return conv.status();
    Tensor workspace;
    const int64_t floats =
        ((*conv)->workspace_bytes() + sizeof(float) - 1) / static_cast<int64_t>(sizeof(float));
    MINITF_RETURN_IF_ERROR(ctx->allocate_temp(DT_FLOAT, TensorShape({floats}), &workspace));
    return (*conv)->Run(ctx->eigen_cpu_device().numThreads(), a, b, out,
                        floats == 0 ? nullptr : workspace.data<float>());
  }
}

// Float through oneDNN when TryOneDnn takes it; otherwise the
// device-agnostic functors of conv_functors.h on the intra-op pool, each
// with an im2col workspace of the size it asks for.
template <typename T>
struct CpuConv2D {
  static absl::Status Check(const Conv2DParameters&, absl::string_view) {
    return absl::OkStatus();
  }

  static absl::Status Convolve(OpKernelContext* ctx, const functor::Conv2DGeometry& g,
                               const Tensor& input, const Tensor& filter, Tensor* output) {
    if (std::optional<absl::Status> s =
            TryOneDnn<T>(ctx, functor::OneDnnConv::Direction::kForward, g, input.data<T>(),
                         filter.data<T>(), output->data<T>())) {
      return *s;
    }
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    Tensor workspace;
    MINITF_RETURN_IF_ERROR(
        AllocateWorkspace(ctx, functor::Conv2DFunctor<T>::WorkspaceElements(d, g), &workspace));
    functor::Conv2DFunctor<T>()(d, g, input.data<T>(), filter.data<T>(), output->data<T>(),
                                workspace.data<T>());
    return absl::OkStatus();
  }

  static absl::Status BackpropInput(OpKernelContext* ctx, const functor::Conv2DGeometry& g,
                                    const Tensor& filter, const Tensor& out_backprop,
                                    Tensor* in_backprop) {
    if (std::optional<absl::Status> s =
            TryOneDnn<T>(ctx, functor::OneDnnConv::Direction::kBackpropInput, g,
                         filter.data<T>(), out_backprop.data<T>(), in_backprop->data<T>())) {
      return *s;
    }
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    Tensor workspace;
    MINITF_RETURN_IF_ERROR(AllocateWorkspace(
        ctx, functor::Conv2DBackpropInputFunctor<T>::WorkspaceElements(d, g), &workspace));
    functor::Conv2DBackpropInputFunctor<T>()(d, g, filter.data<T>(), out_backprop.data<T>(),
                                             in_backprop->data<T>(), workspace.data<T>());
    return absl::OkStatus();
  }

  static absl::Status BackpropFilter(OpKernelContext* ctx, const functor::Conv2DGeometry& g,
                                     const Tensor& input, const Tensor& out_backprop,
                                     Tensor* filter_backprop) {
    if (std::optional<absl::Status> s =
            TryOneDnn<T>(ctx, functor::OneDnnConv::Direction::kBackpropFilter, g,
                         input.data<T>(), out_backprop.data<T>(), filter_backprop->data<T>())) {
      return *s;
    }
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    Tensor workspace;
    MINITF_RETURN_IF_ERROR(AllocateWorkspace(
        ctx, functor::Conv2DBackpropFilterFunctor<T>::WorkspaceElements(d, g), &workspace));
    functor::Conv2DBackpropFilterFunctor<T>()(d, g, input.data<T>(), out_backprop.data<T>(),
                                              filter_backprop->data<T>(), workspace.data<T>());
    return absl::OkStatus();
  }

  static absl::Status AddBiasAndActivate(OpKernelContext* ctx, FusedActivation activation,
                                         const Tensor& bias, Tensor* output) {
    minitf::AddBiasAndActivate<T>(ctx->eigen_cpu_device(), activation, bias, output);
    return absl::OkStatus();
  }

  static absl::Status Transpose(OpKernelContext* ctx, const Tensor& in,
                                const std::array<int, 4>& perm, Tensor* out) {
    return CpuTransposeImage<T>(ctx, in, perm, out);
  }

 private:
  static absl::Status AllocateWorkspace(OpKernelContext* ctx, int64_t elements,
                                        Tensor* workspace) {
    return ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({elements}), workspace);
  }
};

#define MINITF_REGISTER_CONV(T)                                                                   \
  REGISTER_KERNEL_BUILDER(Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"),               \
                          Conv2DOp<CpuConv2D<T>>);                                                \
  REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
                          Conv2DBackpropInputOp<CpuConv2D<T>>);                                   \
  REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropFilter").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          Conv2DBackpropFilterOp<CpuConv2D<T>>)
MINITF_REGISTER_CONV(float);
MINITF_REGISTER_CONV(double);
#undef MINITF_REGISTER_CONV

// _FusedConv2D: Conv2D's convolution, then the bias and the activation in
// one pass over the output (fused_bias_activation.h). `Device` adds
//   static absl::Status AddBiasAndActivate(OpKernelContext*, FusedActivation,
//                                          const Tensor& bias, Tensor* output);
// and may add, for a library that fuses the bias and a Relu into the
// convolution (cuDNN),
//   static absl::StatusOr<bool> ConvolveBiasRelu(
//       OpKernelContext*, const functor::Conv2DGeometry&, const Tensor& input,
//       const Tensor& filter, const Tensor& bias, Tensor* output);  // false: not done
template <typename Device>
class FusedConv2DOp : public Conv2DOpBase<Device> {
 public:
  explicit FusedConv2DOp(OpKernelConstruction* ctx) : Conv2DOpBase<Device>(ctx) {
    absl::StatusOr<FusedActivation> activation = FusedActivationFromAttrs(*ctx);
    OP_REQUIRES_OK(ctx, activation.status());
    // TensorFlow fuses the GELUs into MatMuls only.
    OP_REQUIRES(ctx,
                *activation != FusedActivation::kGeluApproximate &&
                    *activation != FusedActivation::kGeluExact,
                absl::UnimplementedError(
                    "_FusedConv2D's activation must be one of Relu, Relu6, Elu, Tanh; the GELUs "
                    "fuse into _FusedMatMul only"));
    activation_ = *activation;
    std::string filter_format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("filter_format", &filter_format));
    OP_REQUIRES(ctx, filter_format == "HWIO",
                absl::UnimplementedError(absl::StrCat("filter_format ", filter_format,
                                                      " is not supported; only HWIO")));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<functor::Conv2DGeometry> g = this->Conv2DGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    const Tensor& bias = ctx->input(2);
    const int64_t channels = ctx->input(1).dim_size(3);
    OP_REQUIRES(ctx, bias.dims() == 1 && bias.dim_size(0) == channels,
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "bias must be a vector of the filter's ", channels,
                                   " output channels, got shape ", bias.shape().DebugString())),
                               this->def()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, this->ImageShape(Conv2DOutputShape(*g)), &output));
    if (output->NumElements() == 0) return;
    if (!this->nchw()) {
      OP_REQUIRES_OK(ctx, ConvolveBiasActivate(ctx, *g, ctx->input(0), bias, output));
      return;
    }
    Tensor input, result;
    OP_REQUIRES_OK(ctx, ImageToNhwc<Device>(ctx, ctx->input(0), &input));
    OP_REQUIRES_OK(ctx, NhwcScratchFor(ctx, *output, &result));
    OP_REQUIRES_OK(ctx, ConvolveBiasActivate(ctx, *g, input, bias, &result));
    OP_REQUIRES_OK(ctx, ImageFromNhwc<Device>(ctx, result, output));
  }

 private:
  // output (NHWC) = activation(conv2d(input, filter) + bias).
  absl::Status ConvolveBiasActivate(OpKernelContext* ctx, const functor::Conv2DGeometry& g,
                                    const Tensor& input, const Tensor& bias, Tensor* output) {
    if constexpr (requires { &Device::ConvolveBiasRelu; }) {
      if (activation_ == FusedActivation::kRelu) {
        MINITF_ASSIGN_OR_RETURN(
            const bool fused,
            Device::ConvolveBiasRelu(ctx, g, input, ctx->input(1), bias, output));
        if (fused) return absl::OkStatus();
      }
    }
    MINITF_RETURN_IF_ERROR(Device::Convolve(ctx, g, input, ctx->input(1), output));
    return Device::AddBiasAndActivate(ctx, activation_, bias, output);
  }


  FusedActivation activation_ = FusedActivation::kNone;  // Constant after construction.
};

REGISTER_KERNEL_BUILDER(Name("_FusedConv2D").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        FusedConv2DOp<CpuConv2D<float>>);
REGISTER_KERNEL_BUILDER(Name("_FusedConv2D").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                        FusedConv2DOp<CpuConv2D<double>>);

#ifdef MINITF_WITH_CUDA
se::dnn::ConvolutionDescriptor ToDescriptor(const functor::Conv2DGeometry& g) {
  se::dnn::ConvolutionDescriptor d;
  d.batch = g.batch;
  d.in_rows = g.in_rows;
  d.in_cols = g.in_cols;
  d.in_depth = g.in_depth;
  d.filter_rows = g.filter_rows;
  d.filter_cols = g.filter_cols;
  d.out_depth = g.out_depth;
  d.out_rows = g.out_rows;
  d.out_cols = g.out_cols;
  d.stride_rows = g.stride_rows;
  d.stride_cols = g.stride_cols;
  d.pad_top = g.pad_top;
  d.pad_left = g.pad_left;
  return d;
}

struct CudaConv2D {
  static absl::Status Check(const Conv2DParameters& params, absl::string_view op) {
    if (params.dilation_rows == 1 && params.dilation_cols == 1) return absl::OkStatus();
    return absl::UnimplementedError(absl::StrCat("the CUDA ", op,
                                                 " kernel supports dilations of 1 only, got ",
                                                 params.dilation_rows, " and ",
                                                 params.dilation_cols));
  }

  static absl::Status Convolve(OpKernelContext* ctx, const functor::Conv2DGeometry& g,
                               const Tensor& input, const Tensor& filter, Tensor* output) {
    return DnnOnComputeStream(ctx, [&](se::Stream* stream, se::DnnSupport* dnn) {
      se::DeviceMemory<float> out = AsDeviceMemory(*output);
      OpScratchAllocator scratch(ctx);
      return dnn->DoConvolve(stream, ToDescriptor(g), AsDeviceMemory(input), AsDeviceMemory(filter),
                             &out, &scratch);
    });
  }

  // cuDNN's fused convolution (cudnnConvolutionBiasActivationForward), as
  // TensorFlow's CUDA _FusedConv2D with a Relu; false where cuDNN declines
  // it. The bias alone stays with the bias kernel: cuDNN fuses an identity
  // activation with one algorithm only (IMPLICIT_PRECOMP_GEMM).
  static absl::StatusOr<bool> ConvolveBiasRelu(OpKernelContext* ctx,
                                               const functor::Conv2DGeometry& g,
                                               const Tensor& input, const Tensor& filter,
                                               const Tensor& bias, Tensor* output) {
    bool done = false;
    MINITF_RETURN_IF_ERROR(DnnOnComputeStream(ctx, [&](se::Stream* stream, se::DnnSupport* dnn) {
      se::DeviceMemory<float> out = AsDeviceMemory(*output);
      OpScratchAllocator scratch(ctx);
      return UnlessDeclined(
          dnn->DoFusedConvolveBiasRelu(stream, ToDescriptor(g), AsDeviceMemory(input),
                                       AsDeviceMemory(filter), AsDeviceMemory(bias), &out,
                                       &scratch),
          &done);
    }));
    return done;
  }

  static absl::Status BackpropInput(OpKernelContext* ctx, const functor::Conv2DGeometry& g,
                                    const Tensor& filter, const Tensor& out_backprop,
                                    Tensor* in_backprop) {
    return DnnOnComputeStream(ctx, [&](se::Stream* stream, se::DnnSupport* dnn) {
      se::DeviceMemory<float> result = AsDeviceMemory(*in_backprop);
      OpScratchAllocator scratch(ctx);
      return dnn->DoConvolveBackwardData(stream, ToDescriptor(g), AsDeviceMemory(filter),
                                         AsDeviceMemory(out_backprop), &result, &scratch);
    });
  }

  static absl::Status BackpropFilter(OpKernelContext* ctx, const functor::Conv2DGeometry& g,
                                     const Tensor& input, const Tensor& out_backprop,
                                     Tensor* filter_backprop) {
    return DnnOnComputeStream(ctx, [&](se::Stream* stream, se::DnnSupport* dnn) {
      se::DeviceMemory<float> result = AsDeviceMemory(*filter_backprop);
      OpScratchAllocator scratch(ctx);
      return dnn->DoConvolveBackwardFilter(stream, ToDescriptor(g), AsDeviceMemory(input),
                                           AsDeviceMemory(out_backprop), &result, &scratch);
    });
  }

  static absl::Status AddBiasAndActivate(OpKernelContext* ctx, FusedActivation activation,
                                         const Tensor& bias, Tensor* output) {
    return AddBiasAndActivateOnComputeStream(ctx, activation, bias, output);
  }

  static absl::Status Transpose(OpKernelContext* ctx, const Tensor& in,
                                const std::array<int, 4>& perm, Tensor* out) {
    return CudaTransposeImage(ctx, in, perm, out);
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Conv2D").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    Conv2DOp<CudaConv2D>);
REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropInput")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .HostMemory("input_sizes"),
                        Conv2DBackpropInputOp<CudaConv2D>);
REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropFilter")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .HostMemory("filter_sizes"),
                        Conv2DBackpropFilterOp<CudaConv2D>);
REGISTER_KERNEL_BUILDER(
    Name("_FusedConv2D").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    FusedConv2DOp<CudaConv2D>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
