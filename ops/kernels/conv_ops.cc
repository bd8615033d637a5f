// Kernels: Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on CPU, NHWC.
// Each has its shapes checked by Conv2DOpBase (as on every device),
// allocates its output and an im2col workspace, and calls the
// device-agnostic functors of conv_functors.h on the intra-op pool.
#include "ops/kernels/conv_functors.h"
#include "ops/kernels/conv_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename T>
absl::Status AllocateWorkspace(OpKernelContext* ctx, int64_t elements, Tensor* workspace) {
  return ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({elements}), workspace);
}

// output = conv2d(input, filter).
template <typename T>
class Conv2DOp : public Conv2DOpBase {
 public:
  using Conv2DOpBase::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    absl::StatusOr<functor::Conv2DGeometry> g = Conv2DGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, Conv2DOutputShape(*g), &output));
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    Tensor workspace;
    OP_REQUIRES_OK(ctx, AllocateWorkspace<T>(
                            ctx, functor::Conv2DFunctor<T>::WorkspaceElements(d, *g), &workspace));
    functor::Conv2DFunctor<T>()(d, *g, input.data<T>(), filter.data<T>(), output->data<T>(),
                                workspace.data<T>());
  }
};

// The gradient of Conv2D with respect to its input, whose shape input_sizes gives.
template <typename T>
class Conv2DBackpropInputOp : public Conv2DOpBase {
 public:
  using Conv2DOpBase::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    absl::StatusOr<functor::Conv2DGeometry> g = BackpropInputGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, Conv2DInputShape(*g), &in_backprop));
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    Tensor workspace;
    OP_REQUIRES_OK(ctx, AllocateWorkspace<T>(
                            ctx, functor::Conv2DBackpropInputFunctor<T>::WorkspaceElements(d, *g),
                            &workspace));
    functor::Conv2DBackpropInputFunctor<T>()(d, *g, filter.data<T>(), out_backprop.data<T>(),
                                             in_backprop->data<T>(), workspace.data<T>());
  }
};

// The gradient of Conv2D with respect to its filter, whose shape filter_sizes gives.
template <typename T>
class Conv2DBackpropFilterOp : public Conv2DOpBase {
 public:
  using Conv2DOpBase::Conv2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    absl::StatusOr<functor::Conv2DGeometry> g = BackpropFilterGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* filter_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, Conv2DFilterShape(*g), &filter_backprop));
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    Tensor workspace;
    OP_REQUIRES_OK(ctx, AllocateWorkspace<T>(
                            ctx, functor::Conv2DBackpropFilterFunctor<T>::WorkspaceElements(d, *g),
                            &workspace));
    functor::Conv2DBackpropFilterFunctor<T>()(d, *g, input.data<T>(), out_backprop.data<T>(),
                                              filter_backprop->data<T>(), workspace.data<T>());
  }
};

#define MINITF_REGISTER_CONV(T)                                                                   \
  REGISTER_KERNEL_BUILDER(Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"), Conv2DOp<T>); \
  REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
                          Conv2DBackpropInputOp<T>);                                              \
  REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropFilter").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          Conv2DBackpropFilterOp<T>)
MINITF_REGISTER_CONV(float);
MINITF_REGISTER_CONV(double);
#undef MINITF_REGISTER_CONV

}  // namespace
}  // namespace minitf
