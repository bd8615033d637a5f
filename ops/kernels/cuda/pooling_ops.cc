// Kernels: MaxPool and MaxPoolGrad on CUDA GPUs (float, NHWC) through the
// executor's DNN plugin, whose pooling follows TensorFlow's tie-breaking.
// Shapes and attrs are checked as on the CPU (Pool2DOpBase).
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/pooling_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"
#include "stream/dnn.h"
#include "stream/stream_executor.h"

namespace minitf {
namespace {

se::dnn::ConvolutionDescriptor ToDescriptor(const functor::Pool2DGeometry& g) {
  se::dnn::ConvolutionDescriptor d;
  d.batch = g.batch;
  d.in_rows = g.in_rows;
  d.in_cols = g.in_cols;
  d.in_depth = g.depth;
  d.filter_rows = g.window_rows;
  d.filter_cols = g.window_cols;
  d.out_rows = g.out_rows;
  d.out_cols = g.out_cols;
  d.stride_rows = g.stride_rows;
  d.stride_cols = g.stride_cols;
  d.pad_top = g.pad_top;
  d.pad_left = g.pad_left;
  return d;
}

class MaxPoolOp : public Pool2DOpBase {
 public:
  using Pool2DOpBase::Pool2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    absl::StatusOr<functor::Pool2DGeometry> g = MaxPoolGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    absl::StatusOr<se::DnnSupport*> dnn = DnnOf(*stream, *this);
    OP_REQUIRES_OK(ctx, dnn.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, Pool2DOutputShape(*g), &output));
    if (output->NumElements() == 0) return;
    se::DeviceMemory<float> out = AsDeviceMemory(*output);
    OP_REQUIRES_OK(ctx, AttachNodeName((*dnn)->DoMaxPool(*stream, ToDescriptor(*g),
                                                         AsDeviceMemory(input), &out),
                                       def()));
  }
};

// The gradient of MaxPool with respect to orig_input; the maxima are found
// again in orig_input, orig_output is only checked for its shape.
class MaxPoolGradOp : public Pool2DOpBase {
 public:
  using Pool2DOpBase::Pool2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& orig_input = ctx->input(0);
    const Tensor& orig_output = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    absl::StatusOr<functor::Pool2DGeometry> g = MaxPoolGradGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    absl::StatusOr<se::DnnSupport*> dnn = DnnOf(*stream, *this);
    OP_REQUIRES_OK(ctx, dnn.status());
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, orig_input.shape(), &in_backprop));
    if (in_backprop->NumElements() == 0) return;
    se::DeviceMemory<float> result = AsDeviceMemory(*in_backprop);
    OP_REQUIRES_OK(ctx, AttachNodeName((*dnn)->DoMaxPoolBackward(
                                           *stream, ToDescriptor(*g), AsDeviceMemory(orig_input),
                                           AsDeviceMemory(orig_output), AsDeviceMemory(grad),
                                           &result),
                                       def()));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("MaxPool").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), MaxPoolOp);
REGISTER_KERNEL_BUILDER(
    Name("MaxPoolGrad").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    MaxPoolGradOp);

}  // namespace
}  // namespace minitf
