// Kernels: AvgPool and AvgPoolGrad on CPU, NHWC and NCHW, for float and
// double. The window attrs and shape checks are Pool2DOpBase's (as for
// MaxPool); the arithmetic is the device-agnostic functors of
// pooling_functors.h, run on the intra-op pool, in NHWC (under NCHW between
// transposes, image_layout.h). AvgPoolGrad reads orig_input_shape on the
// host.
#include <array>

#include "ops/kernels/image_layout.h"
#include "ops/kernels/pooling_functors.h"
#include "ops/kernels/pooling_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// The host's transpose, for image_layout.h.
template <typename T>
struct Cpu {
  static absl::Status Transpose(OpKernelContext* ctx, const Tensor& in,
                                const std::array<int, 4>& perm, Tensor* out) {
    return CpuTransposeImage<T>(ctx, in, perm, out);
  }
};

template <typename T>
class AvgPoolOp : public Pool2DOpBase {
 public:
  using Pool2DOpBase::Pool2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<functor::Pool2DGeometry> g = MaxPoolGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ImageShape(Pool2DOutputShape(*g)), &output));
    if (!nchw()) {
      Pool(ctx, *g, ctx->input(0), output);
      return;
    }
    if (output->NumElements() == 0) return;
    Tensor input, result;
    OP_REQUIRES_OK(ctx, ImageToNhwc<Cpu<T>>(ctx, ctx->input(0), &input));
    OP_REQUIRES_OK(ctx, NhwcScratchFor(ctx, *output, &result));
    Pool(ctx, *g, input, &result);
    OP_REQUIRES_OK(ctx, ImageFromNhwc<Cpu<T>>(ctx, result, output));
  }

 private:
  static void Pool(OpKernelContext* ctx, const functor::Pool2DGeometry& g, const Tensor& input,
                   Tensor* output) {
    functor::AvgPoolFunctor<T>()(ctx->eigen_cpu_device(), g, input.data<T>(), output->data<T>());
  }
};

// The gradient of AvgPool with respect to its input, whose shape is the
// value of orig_input_shape.
template <typename T>
class AvgPoolGradOp : public Pool2DOpBase {
 public:
  using Pool2DOpBase::Pool2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(1);
    absl::StatusOr<functor::Pool2DGeometry> g = AvgPoolGradGeometryOf(ctx);
    OP_REQUIRES_OK(ctx, g.status());
    const TensorShape input_shape({g->batch, g->in_rows, g->in_cols, g->depth});
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ImageShape(input_shape), &in_backprop));
    if (!nchw()) {
      PoolGrad(ctx, *g, grad, in_backprop);
      return;
    }
    if (in_backprop->NumElements() == 0) return;
    Tensor nhwc_grad, result;
    OP_REQUIRES_OK(ctx, ImageToNhwc<Cpu<T>>(ctx, grad, &nhwc_grad));
    OP_REQUIRES_OK(ctx, NhwcScratchFor(ctx, *in_backprop, &result));
    PoolGrad(ctx, *g, nhwc_grad, &result);
    OP_REQUIRES_OK(ctx, ImageFromNhwc<Cpu<T>>(ctx, result, in_backprop));
  }

 private:
  static void PoolGrad(OpKernelContext* ctx, const functor::Pool2DGeometry& g, const Tensor& grad,
                       Tensor* in_backprop) {
    functor::AvgPoolGradFunctor<T>()(ctx->eigen_cpu_device(), g, grad.data<T>(),
                                     in_backprop->data<T>());
  }
};

#define MINITF_REGISTER_AVG_POOLING(T)                                                  \
  REGISTER_KERNEL_BUILDER(Name("AvgPool").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
                          AvgPoolOp<T>);                                                \
  REGISTER_KERNEL_BUILDER(Name("AvgPoolGrad")                                           \
                              .Device(DEVICE_CPU)                                       \
                              .TypeConstraint<T>("T")                                   \
                              .HostMemory("orig_input_shape"),                          \
                          AvgPoolGradOp<T>)
MINITF_REGISTER_AVG_POOLING(float);
MINITF_REGISTER_AVG_POOLING(double);
#undef MINITF_REGISTER_AVG_POOLING

}  // namespace
}  // namespace minitf
