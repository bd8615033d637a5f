// Kernels: the gradient helpers of unary ops, RsqrtGrad, SqrtGrad,
// ReciprocalGrad, SigmoidGrad and TanhGrad, on the CPU for float and double
// and on CUDA GPUs for float (cwise_ops_unary_gpu.cu).
// Each takes y = f(x) and dy = dL/dy with one element count (TensorFlow does
// not broadcast them) and gives dL/dx, written into dy's or y's buffer when
// no one else holds it.
#include "ops/kernels/activation_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cwise_ops_gpu.h"
#endif

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

// The skeleton every device shares; `Device` supplies only
//   static absl::Status Launch(OpKernelContext*, const Tensor& y, const Tensor& dy, Tensor* z);
template <typename Device>
class UnaryGradOp : public OpKernel {
 public:
  explicit UnaryGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& y = ctx->input(0);
    const Tensor& dy = ctx->input(1);
    OP_REQUIRES_OK(ctx, ValidateUnaryGradInputs(y, dy, *this));
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({1, 0}, 0, y.shape(), &z));
    if (y.NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Device::Launch(ctx, y, dy, z));
  }
};

template <typename T, typename Fn>
struct CpuUnaryGrad {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& y, const Tensor& dy, Tensor* z) {
    const auto yf = y.flat<T>();
    const auto dyf = dy.flat<T>();
    z->flat<T>().device(ctx->eigen_cpu_device()) = Fn::template Apply<T>(yf, dyf);
    return absl::OkStatus();
  }
};

#define MINITF_REGISTER_UNARY_GRAD_KERNEL_(name, Fn, T)                         \
  REGISTER_KERNEL_BUILDER(Name(name).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnaryGradOp<CpuUnaryGrad<T, Fn>>)
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

#ifdef MINITF_WITH_CUDA
template <gpu::UnaryGradKind kKind>
struct CudaUnaryGrad {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& y, const Tensor& dy, Tensor* z) {
    return LaunchOnComputeStream(ctx, ctx->op_kernel().type_string(), [&](cudaStream_t stream) {
      return gpu::LaunchUnaryGrad(stream, kKind, y.NumElements(), y.data<float>(),
                                  dy.data<float>(), z->data<float>());
    });
  }
};

#define MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_(name, kind)                      \
  REGISTER_KERNEL_BUILDER(                                                       \
      Name(name).Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), \
      UnaryGradOp<CudaUnaryGrad<gpu::UnaryGradKind::kind>>)
MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_("RsqrtGrad", kRsqrt);
MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_("SqrtGrad", kSqrt);
MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_("ReciprocalGrad", kReciprocal);
MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_("SigmoidGrad", kSigmoid);
MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_("TanhGrad", kTanh);
#undef MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
