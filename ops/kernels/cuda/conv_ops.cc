// Kernels: Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on CUDA GPUs
// (float, NHWC, HWIO filters) through the executor's DNN plugin (cuDNN).
// Shapes and attrs are checked as on the CPU (window_geometry.h); the sizes
// inputs of the gradients are read in host memory. Dilations other than 1
// are Unimplemented: the plugin's ConvolutionDescriptor carries none.
#include "absl/strings/str_cat.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/window_geometry.h"
#include "ops/util/window_attrs.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"
#include "stream/dnn.h"
#include "stream/stream_executor.h"

namespace minitf {
namespace {

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

// Reads the window attrs once, when the kernel is built.
class Conv2DOpBase : public OpKernel {
 public:
  explicit Conv2DOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::StatusOr<Conv2DParameters> params = ReadConv2DParameters(ctx->def());
    OP_REQUIRES_OK(ctx, params.status());
    params_ = *params;
    OP_REQUIRES(ctx, params_.dilation_rows == 1 && params_.dilation_cols == 1,
                absl::UnimplementedError(absl::StrCat(
                    "the CUDA ", ctx->def().op, " kernel supports dilations of 1 only, got ",
                    params_.dilation_rows, " and ", params_.dilation_cols)));
  }

 protected:
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
    return TensorShape({v[0], v[1], v[2], v[3]});
  }

  absl::Status CheckOutBackprop(const functor::Conv2DGeometry& g,
                                const Tensor& out_backprop) const {
    const TensorShape expected = Conv2DOutputShape(g);
    if (out_backprop.shape() == expected) return absl::OkStatus();
    return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                              "out_backprop has shape ", out_backprop.shape().DebugString(),
                              " but the convolution's output has shape ", expected.DebugString())),
                          def());
  }

  // The DNN plugin of the compute stream's executor.
  absl::StatusOr<se::DnnSupport*> Dnn(se::Stream* stream) const {
    se::DnnSupport* dnn = stream->parent()->AsDnn();
    if (dnn != nullptr) return dnn;
    return AttachNodeName(absl::FailedPreconditionError("the CUDA device has no DNN plugin"),
                          def());
  }

  Conv2DParameters params_;
};

class Conv2DOp : public Conv2DOpBase {
 public:
  using Conv2DOpBase::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    absl::StatusOr<functor::Conv2DGeometry> g = Geometry(input.shape(), filter.shape());
    OP_REQUIRES_OK(ctx, g.status());
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    absl::StatusOr<se::DnnSupport*> dnn = Dnn(*stream);
    OP_REQUIRES_OK(ctx, dnn.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, Conv2DOutputShape(*g), &output));
    if (output->NumElements() == 0) return;
    se::DeviceMemory<float> out = AsDeviceMemory(*output);
    OP_REQUIRES_OK(ctx, AttachNodeName((*dnn)->DoConvolve(*stream, ToDescriptor(*g),
                                                          AsDeviceMemory(input),
                                                          AsDeviceMemory(filter), &out),
                                       def()));
  }
};

class Conv2DBackpropInputOp : public Conv2DOpBase {
 public:
  using Conv2DOpBase::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    absl::StatusOr<TensorShape> input_shape = ShapeFromSizes(ctx->input(0), "input_sizes");
    OP_REQUIRES_OK(ctx, input_shape.status());
    absl::StatusOr<functor::Conv2DGeometry> g = Geometry(*input_shape, filter.shape());
    OP_REQUIRES_OK(ctx, g.status());
    OP_REQUIRES_OK(ctx, CheckOutBackprop(*g, out_backprop));
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    absl::StatusOr<se::DnnSupport*> dnn = Dnn(*stream);
    OP_REQUIRES_OK(ctx, dnn.status());
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *input_shape, &in_backprop));
    if (in_backprop->NumElements() == 0) return;
    se::DeviceMemory<float> result = AsDeviceMemory(*in_backprop);
    OP_REQUIRES_OK(ctx, AttachNodeName((*dnn)->DoConvolveBackwardData(
                                           *stream, ToDescriptor(*g), AsDeviceMemory(filter),
                                           AsDeviceMemory(out_backprop), &result),
                                       def()));
  }
};

class Conv2DBackpropFilterOp : public Conv2DOpBase {
 public:
  using Conv2DOpBase::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    absl::StatusOr<TensorShape> filter_shape = ShapeFromSizes(ctx->input(1), "filter_sizes");
    OP_REQUIRES_OK(ctx, filter_shape.status());
    absl::StatusOr<functor::Conv2DGeometry> g = Geometry(input.shape(), *filter_shape);
    OP_REQUIRES_OK(ctx, g.status());
    OP_REQUIRES_OK(ctx, CheckOutBackprop(*g, out_backprop));
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    absl::StatusOr<se::DnnSupport*> dnn = Dnn(*stream);
    OP_REQUIRES_OK(ctx, dnn.status());
    Tensor* filter_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *filter_shape, &filter_backprop));
    if (filter_backprop->NumElements() == 0) return;
    se::DeviceMemory<float> result = AsDeviceMemory(*filter_backprop);
    OP_REQUIRES_OK(ctx, AttachNodeName((*dnn)->DoConvolveBackwardFilter(
                                           *stream, ToDescriptor(*g), AsDeviceMemory(input),
                                           AsDeviceMemory(out_backprop), &result),
                                       def()));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Conv2D").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), Conv2DOp);
REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropInput")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .HostMemory("input_sizes"),
                        Conv2DBackpropInputOp);
REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropFilter")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .HostMemory("filter_sizes"),
                        Conv2DBackpropFilterOp);

}  // namespace
}  // namespace minitf
