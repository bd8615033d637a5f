// Kernels: MaxPool and MaxPoolGrad on CPU, NHWC. Each has its shapes checked
// by Pool2DOpBase (as on every device), allocates its output and calls the
// device-agnostic functors of pooling_functors.h on the intra-op pool.
#include "ops/kernels/pooling_functors.h"
#include "ops/kernels/pooling_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename T>
class MaxPoolOp : public Pool2DOpBase {
 public:
  using Pool2DOpBase::Pool2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    absl::StatusOr<functor::Pool2DGeometry> g = MaxPoolGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, Pool2DOutputShape(*g), &output));
    functor::MaxPoolFunctor<T>()(ctx->eigen_cpu_device(), *g, input.data<T>(), output->data<T>());
  }
};

// The gradient of MaxPool with respect to orig_input. The maxima are found
// again in orig_input; orig_output is only checked for its shape.
template <typename T>
class MaxPoolGradOp : public Pool2DOpBase {
 public:
  using Pool2DOpBase::Pool2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& orig_input = ctx->input(0);
    const Tensor& grad = ctx->input(2);
    absl::StatusOr<functor::Pool2DGeometry> g = MaxPoolGradGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, orig_input.shape(), &in_backprop));
    functor::MaxPoolGradFunctor<T>()(ctx->eigen_cpu_device(), *g, orig_input.data<T>(),
                                     grad.data<T>(), in_backprop->data<T>());
  }
};

#define MINITF_REGISTER_POOLING(T)                                                       \
  REGISTER_KERNEL_BUILDER(Name("MaxPool").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
                          MaxPoolOp<T>);                                                 \
  REGISTER_KERNEL_BUILDER(Name("MaxPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          MaxPoolGradOp<T>)
MINITF_REGISTER_POOLING(float);
MINITF_REGISTER_POOLING(double);
#undef MINITF_REGISTER_POOLING

}  // namespace
}  // namespace minitf
