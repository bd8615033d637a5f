// Kernels: the gradient helpers of unary ops, RsqrtGrad, SqrtGrad,
// ReciprocalGrad, SigmoidGrad and TanhGrad, on CPU for float and double.
// Each takes y = f(x) and dy = dL/dy with one element count (TensorFlow does
// not broadcast them) and gives dL/dx, written into dy's or y's buffer when
// no one else holds it.
#include "ops/kernels/activation_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// Each Fn::Apply<T>(y, dy) returns the Eigen expression of dL/dx; the
// operands must outlive its evaluation.
struct RsqrtGradFn {  // d/dx x^-1/2 = -1/2 x^-3/2 = -1/2 y^3
  template <typename T, typename Y, typename D>
  static auto Apply(const Y& y, const D& dy) { return dy * y * y * y * T(-0.5); }
};
struct SqrtGradFn {  // d/dx x^1/2 = 1/2 x^-1/2 = 0.5 / y
  template <typename T, typename Y, typename D>
  static auto Apply(const Y& y, const D& dy) { return dy * T(0.5) / y; }
};
struct ReciprocalGradFn {  // d/dx 1/x = -1/x^2 = -y^2
  template <typename T, typename Y, typename D>
  static auto Apply(const Y& y, const D& dy) { return -dy * y * y; }
};
struct SigmoidGradFn {  // sigmoid' = y (1 - y)
  template <typename T, typename Y, typename D>
  static auto Apply(const Y& y, const D& dy) { return dy * y * (y.constant(T(1)) - y); }
};
struct TanhGradFn {  // tanh' = 1 - y^2
  template <typename T, typename Y, typename D>
  static auto Apply(const Y& y, const D& dy) { return dy * (y.constant(T(1)) - y * y); }
};

template <typename T, typename Fn>
class UnaryGradOp : public OpKernel {
 public:
  explicit UnaryGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& y = ctx->input(0);
    const Tensor& dy = ctx->input(1);
    OP_REQUIRES_OK(ctx, ValidateUnaryGradInputs(y, dy, *this));
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({1, 0}, 0, y.shape(), &z));
    const auto yf = y.flat<T>();
    const auto dyf = dy.flat<T>();
    z->flat<T>().device(ctx->eigen_cpu_device()) = Fn::template Apply<T>(yf, dyf);
  }
};

#define MINITF_REGISTER_UNARY_GRAD_KERNEL_(name, Fn, T) \
  REGISTER_KERNEL_BUILDER(Name(name).Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryGradOp<T, Fn>)
#define MINITF_REGISTER_UNARY_GRAD_KERNELS_(name, Fn) \
  MINITF_REGISTER_UNARY_GRAD_KERNEL_(name, Fn, float); \
  MINITF_REGISTER_UNARY_GRAD_KERNEL_(name, Fn, double)

MINITF_REGISTER_UNARY_GRAD_KERNELS_("RsqrtGrad", RsqrtGradFn);
MINITF_REGISTER_UNARY_GRAD_KERNELS_("SqrtGrad", SqrtGradFn);
MINITF_REGISTER_UNARY_GRAD_KERNELS_("ReciprocalGrad", ReciprocalGradFn);
MINITF_REGISTER_UNARY_GRAD_KERNELS_("SigmoidGrad", SigmoidGradFn);
MINITF_REGISTER_UNARY_GRAD_KERNELS_("TanhGrad", TanhGradFn);

#undef MINITF_REGISTER_UNARY_GRAD_KERNELS_
#undef MINITF_REGISTER_UNARY_GRAD_KERNEL_

}  // namespace
}  // namespace minitf
