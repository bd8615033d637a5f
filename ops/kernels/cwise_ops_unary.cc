// Kernels: Neg and Square (float, double, int32, int64) and Sqrt, Exp and
// Log (float, double) on CPU. The output reuses the input's buffer when no
// one else holds it.
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// Each Fn::Apply(x) returns the Eigen expression of the result; `x` must
// outlive its evaluation.
struct NegFn {
  template <typename X>
  static auto Apply(const X& x) { return -x; }
};
struct SquareFn {
  template <typename X>
  static auto Apply(const X& x) { return x.square(); }
};
struct SqrtFn {
  template <typename X>
  static auto Apply(const X& x) { return x.sqrt(); }
};
struct ExpFn {
  template <typename X>
  static auto Apply(const X& x) { return x.exp(); }
};
struct LogFn {
  template <typename X>
  static auto Apply(const X& x) { return x.log(); }
};

template <typename T, typename Fn>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    const auto in = x.flat<T>();
    y->flat<T>().device(ctx->eigen_cpu_device()) = Fn::Apply(in);
  }
};

#define MINITF_REGISTER_UNARY_KERNEL_(name, Fn, T) \
  REGISTER_KERNEL_BUILDER(Name(name).Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, Fn>)
#define MINITF_REGISTER_UNARY_FLOAT_KERNELS_(name, Fn) \
  MINITF_REGISTER_UNARY_KERNEL_(name, Fn, float);      \
  MINITF_REGISTER_UNARY_KERNEL_(name, Fn, double)
#define MINITF_REGISTER_UNARY_NUMBER_KERNELS_(name, Fn) \
  MINITF_REGISTER_UNARY_FLOAT_KERNELS_(name, Fn);       \
  MINITF_REGISTER_UNARY_KERNEL_(name, Fn, int32_t);     \
  MINITF_REGISTER_UNARY_KERNEL_(name, Fn, int64_t)

MINITF_REGISTER_UNARY_NUMBER_KERNELS_("Neg", NegFn);
MINITF_REGISTER_UNARY_NUMBER_KERNELS_("Square", SquareFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Sqrt", SqrtFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Exp", ExpFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Log", LogFn);

#undef MINITF_REGISTER_UNARY_NUMBER_KERNELS_
#undef MINITF_REGISTER_UNARY_FLOAT_KERNELS_
#undef MINITF_REGISTER_UNARY_KERNEL_

}  // namespace
}  // namespace minitf
