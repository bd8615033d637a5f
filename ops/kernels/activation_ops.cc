// Kernels: the element-wise activations Relu, Sigmoid and Tanh, and ReluGrad,
// on CPU. Each writes into its input's buffer when nothing else uses it.
#include "ops/kernels/activation_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// y = Activation::Apply(x) element by element, for any input shape.
template <typename T, typename Activation>
class UnaryActivationOp : public OpKernel {
 public:
  explicit UnaryActivationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    y->flat<T>().device(ctx->eigen_cpu_device()) = Activation::Apply(x.flat<T>());
  }
};

struct ReluFn {
  template <typename X>
  static auto Apply(const X& x) {
    return x.cwiseMax(static_cast<typename X::Scalar>(0));
  }
};

struct SigmoidFn {
  template <typename X>
  static auto Apply(const X& x) {
    return x.sigmoid();
  }
};

struct TanhFn {
  template <typename X>
  static auto Apply(const X& x) {
    return x.tanh();
  }
};

// backprops = gradients where features > 0, else 0. Both inputs have one shape.
template <typename T>
class ReluGradOp : public OpKernel {
 public:
  explicit ReluGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& gradients = ctx->input(0);
    const Tensor& features = ctx->input(1);
    OP_REQUIRES_OK(ctx, ValidateReluGradInputs(gradients, features, *this));
    Tensor* backprops = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->forward_input_or_allocate_output({0, 1}, 0, gradients.shape(), &backprops));
    auto f = features.flat<T>();
    backprops->flat<T>().device(ctx->eigen_cpu_device()) =
        (f > f.constant(T(0))).select(gradients.flat<T>(), f.constant(T(0)));
  }
};

#define MINITF_REGISTER_ACTIVATION(op, T, fn)                                 \
  REGISTER_KERNEL_BUILDER(Name(op).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnaryActivationOp<T, fn>)
MINITF_REGISTER_ACTIVATION("Relu", float, ReluFn);
MINITF_REGISTER_ACTIVATION("Relu", double, ReluFn);
MINITF_REGISTER_ACTIVATION("Relu", int32_t, ReluFn);
MINITF_REGISTER_ACTIVATION("Relu", int64_t, ReluFn);
MINITF_REGISTER_ACTIVATION("Sigmoid", float, SigmoidFn);
MINITF_REGISTER_ACTIVATION("Sigmoid", double, SigmoidFn);
MINITF_REGISTER_ACTIVATION("Tanh", float, TanhFn);
MINITF_REGISTER_ACTIVATION("Tanh", double, TanhFn);
#undef MINITF_REGISTER_ACTIVATION

#define MINITF_REGISTER_RELU_GRAD(T) \
  REGISTER_KERNEL_BUILDER(Name("ReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), ReluGradOp<T>)
MINITF_REGISTER_RELU_GRAD(float);
MINITF_REGISTER_RELU_GRAD(double);
MINITF_REGISTER_RELU_GRAD(int32_t);
MINITF_REGISTER_RELU_GRAD(int64_t);
#undef MINITF_REGISTER_RELU_GRAD

}  // namespace
}  // namespace minitf
