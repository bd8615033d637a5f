// Kernels: Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on CUDA GPUs
// (float, NHWC, HWIO filters) through the executor's DNN plugin (cuDNN).
// Shapes and attrs are checked as on the CPU (Conv2DOpBase); the sizes
// inputs of the gradients are read in host memory. Dilations other than 1
// are Unimplemented: the plugin's ConvolutionDescriptor carries none.
#include "absl/strings/str_cat.h"
#include "ops/kernels/conv_ops_common.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
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

// Conv2DOpBase, with dilations of 1 only.
class CudaConv2DOpBase : public Conv2DOpBase {
 public:
  explicit CudaConv2DOpBase(OpKernelConstruction* ctx) : Conv2DOpBase(ctx) {
    if (!ctx->status().ok()) return;
    OP_REQUIRES(ctx, params().dilation_rows == 1 && params().dilation_cols == 1,
                absl::UnimplementedError(absl::StrCat(
                    "the CUDA ", ctx->def().op, " kernel supports dilations of 1 only, got ",
                    params().dilation_rows, " and ", params().dilation_cols)));
  }
};

class Conv2DOp : public CudaConv2DOpBase {
 public:
  using CudaConv2DOpBase::CudaConv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    absl::StatusOr<functor::Conv2DGeometry> g = Conv2DGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    absl::StatusOr<se::DnnSupport*> dnn = DnnOf(*stream, *this);
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

class Conv2DBackpropInputOp : public CudaConv2DOpBase {
 public:
  using CudaConv2DOpBase::CudaConv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    absl::StatusOr<functor::Conv2DGeometry> g = BackpropInputGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    absl::StatusOr<se::DnnSupport*> dnn = DnnOf(*stream, *this);
    OP_REQUIRES_OK(ctx, dnn.status());
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, Conv2DInputShape(*g), &in_backprop));
    if (in_backprop->NumElements() == 0) return;
    se::DeviceMemory<float> result = AsDeviceMemory(*in_backprop);
    OP_REQUIRES_OK(ctx, AttachNodeName((*dnn)->DoConvolveBackwardData(
                                           *stream, ToDescriptor(*g), AsDeviceMemory(filter),
                                           AsDeviceMemory(out_backprop), &result),
                                       def()));
  }
};

class Conv2DBackpropFilterOp : public CudaConv2DOpBase {
 public:
  using CudaConv2DOpBase::CudaConv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    absl::StatusOr<functor::Conv2DGeometry> g = BackpropFilterGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    absl::StatusOr<se::DnnSupport*> dnn = DnnOf(*stream, *this);
    OP_REQUIRES_OK(ctx, dnn.status());
    Tensor* filter_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, Conv2DFilterShape(*g), &filter_backprop));
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
