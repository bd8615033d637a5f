// Kernels: MaxPool and MaxPoolGrad on CPU, NHWC. Each checks its shapes,
// allocates its output and calls the device-agnostic functors of
// pooling_functors.h on the intra-op pool.
#include "absl/strings/str_cat.h"
#include "ops/kernels/pooling_functors.h"
#include "ops/kernels/window_geometry.h"
#include "ops/util/window_attrs.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// Reads the window attrs once, when the kernel is built.
class Pool2DOpBase : public OpKernel {
 public:
  explicit Pool2DOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::StatusOr<Pool2DParameters> params = ReadPool2DParameters(ctx->def());
    OP_REQUIRES_OK(ctx, params.status());
    params_ = *params;
  }

 protected:
  // The pooling of `input`; errors name the node.
  absl::StatusOr<functor::Pool2DGeometry> Geometry(const TensorShape& input) const {
    absl::StatusOr<functor::Pool2DGeometry> g = MakePool2DGeometry(params_, input);
    if (!g.ok()) return AttachNodeName(g.status(), def());
    return g;
  }

  Pool2DParameters params_;
};

template <typename T>
class MaxPoolOp : public Pool2DOpBase {
 public:
  using Pool2DOpBase::Pool2DOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    absl::StatusOr<functor::Pool2DGeometry> g = Geometry(input.shape());
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
    const Tensor& orig_output = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    absl::StatusOr<functor::Pool2DGeometry> g = Geometry(orig_input.shape());
    OP_REQUIRES_OK(ctx, g.status());
    const TensorShape pooled = Pool2DOutputShape(*g);
    OP_REQUIRES_OK(ctx, CheckPooledShape("orig_output", orig_output, orig_input, pooled));
    OP_REQUIRES_OK(ctx, CheckPooledShape("grad", grad, orig_input, pooled));
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, orig_input.shape(), &in_backprop));
    functor::MaxPoolGradFunctor<T>()(ctx->eigen_cpu_device(), *g, orig_input.data<T>(),
                                     grad.data<T>(), in_backprop->data<T>());
  }

 private:
  absl::Status CheckPooledShape(absl::string_view name, const Tensor& tensor,
                                const Tensor& orig_input, const TensorShape& pooled) const {
    if (tensor.shape() == pooled) return absl::OkStatus();
    return AttachNodeName(
        absl::InvalidArgumentError(absl::StrCat(
            name, " has shape ", tensor.shape().DebugString(), " but pooling orig_input of shape ",
            orig_input.shape().DebugString(), " gives ", pooled.DebugString())),
        def());
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
