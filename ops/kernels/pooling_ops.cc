// Kernels: MaxPool and MaxPoolGrad, NHWC and NCHW, on the CPU (float, double: the
// device-agnostic functors of pooling_functors.h on the intra-op pool) and
// on CUDA GPUs (float: the executor's DNN plugin, cuDNN, whose pooling
// follows TensorFlow's tie-breaking). Every device reads the window attrs
// and checks the inputs the same way (Pool2DOpBase), allocates the output
// and skips an empty one; only the pooling differs. The pools compute in
// NHWC: under NCHW between transposes (image_layout.h).
#include <array>

#include "ops/kernels/image_layout.h"
#include "ops/kernels/pooling_functors.h"
#include "ops/kernels/pooling_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "platform/status_macros.h"
#include "runtime/node_def_util.h"
#include "stream/dnn.h"
#endif

namespace minitf {
namespace {

// output = maxpool(input), by
//   static absl::Status Device::MaxPool(OpKernelContext*, const functor::Pool2DGeometry&,
//                                       const Tensor& input, Tensor* output);
// (NHWC tensors) and Device::Transpose (image_layout.h).
template <typename Device>
class MaxPoolOp : public Pool2DOpBase {
 public:
  using Pool2DOpBase::Pool2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<functor::Pool2DGeometry> g = MaxPoolGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ImageShape(Pool2DOutputShape(*g)), &output));
    if (output->NumElements() == 0) return;
    if (!nchw()) {
      OP_REQUIRES_OK(ctx, Device::MaxPool(ctx, *g, ctx->input(0), output));
      return;
    }
    Tensor input, result;
    OP_REQUIRES_OK(ctx, ImageToNhwc<Device>(ctx, ctx->input(0), &input));
    OP_REQUIRES_OK(ctx, NhwcScratchFor(ctx, *output, &result));
    OP_REQUIRES_OK(ctx, Device::MaxPool(ctx, *g, input, &result));
    OP_REQUIRES_OK(ctx, ImageFromNhwc<Device>(ctx, result, output));
  }
};

// The gradient of MaxPool with respect to orig_input, by
//   static absl::Status Device::MaxPoolGrad(OpKernelContext*, const functor::Pool2DGeometry&,
//                                           const Tensor& orig_input, const Tensor& orig_output,
//                                           const Tensor& grad, Tensor* in_backprop);
// The CPU finds the maxima again in orig_input and reads orig_output only
// for its shape; cuDNN reads both.
template <typename Device>
class MaxPoolGradOp : public Pool2DOpBase {
 public:
  using Pool2DOpBase::Pool2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& orig_input = ctx->input(0);
    absl::StatusOr<functor::Pool2DGeometry> g = MaxPoolGradGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, orig_input.shape(), &in_backprop));
    if (in_backprop->NumElements() == 0) return;
    if (!nchw()) {
      OP_REQUIRES_OK(ctx, Device::MaxPoolGrad(ctx, *g, orig_input, ctx->input(1), ctx->input(2),
                                              in_backprop));
      return;
    }
    Tensor input, output, grad, result;
    OP_REQUIRES_OK(ctx, ImageToNhwc<Device>(ctx, orig_input, &input));
    OP_REQUIRES_OK(ctx, ImageToNhwc<Device>(ctx, ctx->input(1), &output));
    OP_REQUIRES_OK(ctx, ImageToNhwc<Device>(ctx, ctx->input(2), &grad));
    OP_REQUIRES_OK(ctx, NhwcScratchFor(ctx, *in_backprop, &result));
    OP_REQUIRES_OK(ctx, Device::MaxPoolGrad(ctx, *g, input, output, grad, &result));
    OP_REQUIRES_OK(ctx, ImageFromNhwc<Device>(ctx, result, in_backprop));
  }
};

template <typename T>
struct CpuMaxPool {
  static absl::Status MaxPool(OpKernelContext* ctx, const functor::Pool2DGeometry& g,
                              const Tensor& input, Tensor* output) {
    functor::MaxPoolFunctor<T>()(ctx->eigen_cpu_device(), g, input.data<T>(), output->data<T>());
    return absl::OkStatus();
  }

  static absl::Status MaxPoolGrad(OpKernelContext* ctx, const functor::Pool2DGeometry& g,
                                  const Tensor& orig_input, const Tensor& /*orig_output*/,
                                  const Tensor& grad, Tensor* in_backprop) {
    functor::MaxPoolGradFunctor<T>()(ctx->eigen_cpu_device(), g, orig_input.data<T>(),
                                     grad.data<T>(), in_backprop->data<T>());
    return absl::OkStatus();
  }

  static absl::Status Transpose(OpKernelContext* ctx, const Tensor& in,
                                const std::array<int, 4>& perm, Tensor* out) {
    return CpuTransposeImage<T>(ctx, in, perm, out);
  }
};

#define MINITF_REGISTER_POOLING(T)                                                       \
  REGISTER_KERNEL_BUILDER(Name("MaxPool").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
                          MaxPoolOp<CpuMaxPool<T>>);                                     \
  REGISTER_KERNEL_BUILDER(Name("MaxPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          MaxPoolGradOp<CpuMaxPool<T>>)
MINITF_REGISTER_POOLING(float);
MINITF_REGISTER_POOLING(double);
#undef MINITF_REGISTER_POOLING

#ifdef MINITF_WITH_CUDA
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

struct CudaMaxPool {
  static absl::Status MaxPool(OpKernelContext* ctx, const functor::Pool2DGeometry& g,
                              const Tensor& input, Tensor* output) {
    return DnnOnComputeStream(ctx, [&](se::Stream* stream, se::DnnSupport* dnn) {
      se::DeviceMemory<float> out = AsDeviceMemory(*output);
      return dnn->DoMaxPool(stream, ToDescriptor(g), AsDeviceMemory(input), &out);
    });
  }

  static absl::Status MaxPoolGrad(OpKernelContext* ctx, const functor::Pool2DGeometry& g,
                                  const Tensor& orig_input, const Tensor& orig_output,
                                  const Tensor& grad, Tensor* in_backprop) {
    return DnnOnComputeStream(ctx, [&](se::Stream* stream, se::DnnSupport* dnn) {
      se::DeviceMemory<float> result = AsDeviceMemory(*in_backprop);
      return dnn->DoMaxPoolBackward(stream, ToDescriptor(g), AsDeviceMemory(orig_input),
                                    AsDeviceMemory(orig_output), AsDeviceMemory(grad), &result);
    });
  }

  static absl::Status Transpose(OpKernelContext* ctx, const Tensor& in,
                                const std::array<int, 4>& perm, Tensor* out) {
    return CudaTransposeImage(ctx, in, perm, out);
  }
};

REGISTER_KERNEL_BUILDER(
    Name("MaxPool").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    MaxPoolOp<CudaMaxPool>);
REGISTER_KERNEL_BUILDER(
    Name("MaxPoolGrad").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    MaxPoolGradOp<CudaMaxPool>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
