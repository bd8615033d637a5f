// Kernels: the element-wise unary ops. On CPU: Neg, Square, Abs, Sign and
// Relu (float, double, int32, int64) and Sqrt, Rsqrt, Exp, Log, Reciprocal,
// Erf, Erfc, Sigmoid and Tanh (float, double). On CUDA GPUs, for float
// (cwise_ops_unary_gpu.cu, which also holds the kernels of ReluGrad,
// activation_ops.cc, and of the gradient helpers, cwise_ops_gradients.cc):
// Neg, Square, Sqrt, Rsqrt, Exp, Log, Erf, Erfc, Relu, Sigmoid and Tanh.
// The output reuses an input's buffer when no one else holds it.
#include <cmath>
#include <type_traits>

#include "ops/kernels/cpu_elementwise_loops.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cwise_ops_gpu.h"
#endif

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
struct RsqrtFn {
  template <typename X>
  static auto Apply(const X& x) { return x.rsqrt(); }
};
struct AbsFn {
  template <typename X>
  static auto Apply(const X& x) { return x.abs(); }
};

// -1, 0 or 1; a NaN (which is neither above nor below 0) is returned as is.
template <typename T>
struct SignOf {
  T operator()(T v) const {
    if (v > T(0)) return T(1);
    if (v < T(0)) return T(-1);
    return v;  // 0 (or -0.0), or NaN.
  }
};
struct SignFn {
  template <typename X>
  static auto Apply(const X& x) { return x.unaryExpr(SignOf<typename X::Scalar>()); }
};
struct ReciprocalFn {
  template <typename X>
  static auto Apply(const X& x) { return x.inverse(); }
};

template <typename T>
struct ErrorFunction {
  T operator()(T v) const { return std::erf(v); }
};
struct ErfFn {
  template <typename X>
  static auto Apply(const X& x) { return x.unaryExpr(ErrorFunction<typename X::Scalar>()); }
};

template <typename T>
struct ComplementaryErrorFunction {
  T operator()(T v) const { return std::erfc(v); }
};
struct ErfcFn {
  template <typename X>
  static auto Apply(const X& x) {
    return x.unaryExpr(ComplementaryErrorFunction<typename X::Scalar>());
  }
};

struct ExpFn {
  template <typename X>
  static auto Apply(const X& x) { return x.exp(); }
};
struct ReluFn {
  template <typename X>
  static auto Apply(const X& x) { return x.cwiseMax(static_cast<typename X::Scalar>(0)); }
};
struct SigmoidFn {
  template <typename X>
  static auto Apply(const X& x) { return x.sigmoid(); }
};
struct TanhFn {
  template <typename X>
  static auto Apply(const X& x) { return x.tanh(); }
};
struct LogFn {
  template <typename X>
  static auto Apply(const X& x) { return x.log(); }
};

// The skeleton every device shares: the output allocated (in x's buffer
// when nothing else holds it), an empty one returned; `Device` supplies only
//   static absl::Status Launch(OpKernelContext*, const Tensor& x, Tensor* y);
template <typename Device>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    if (x.NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Device::Launch(ctx, x, y));
  }
};

template <typename T, typename Fn>
struct CpuUnary {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& x, Tensor* y) {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<Fn, TanhFn>) {
      // Eigen's approximation at the machine's vector width
      // (cpu_elementwise_loops.h).
      const functor::ElementwiseLoops& loops = functor::ActiveElementwiseLoops();
      const float* in = x.data<float>();
      float* out = y->data<float>();
      ctx->eigen_cpu_device().parallelFor(
          x.NumElements(), Eigen::TensorOpCost(sizeof(float), sizeof(float), 20),
          [&](Eigen::Index begin, Eigen::Index end) {
            loops.tanh_float(in + begin, out + begin, end - begin);
          });
    } else {
      const auto in = x.flat<T>();
      y->flat<T>().device(ctx->eigen_cpu_device()) = Fn::Apply(in);
    }
    return absl::OkStatus();
  }
};

#define MINITF_REGISTER_UNARY_KERNEL_(name, Fn, T)                              \
  REGISTER_KERNEL_BUILDER(Name(name).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnaryOp<CpuUnary<T, Fn>>)
#define MINITF_REGISTER_UNARY_FLOAT_KERNELS_(name, Fn) \
  MINITF_REGISTER_UNARY_KERNEL_(name, Fn, float);      \
  MINITF_REGISTER_UNARY_KERNEL_(name, Fn, double)
#define MINITF_REGISTER_UNARY_NUMBER_KERNELS_(name, Fn) \
  MINITF_REGISTER_UNARY_FLOAT_KERNELS_(name, Fn);       \
  MINITF_REGISTER_UNARY_KERNEL_(name, Fn, int32_t);     \
  MINITF_REGISTER_UNARY_KERNEL_(name, Fn, int64_t)

MINITF_REGISTER_UNARY_NUMBER_KERNELS_("Neg", NegFn);
MINITF_REGISTER_UNARY_NUMBER_KERNELS_("Square", SquareFn);
MINITF_REGISTER_UNARY_NUMBER_KERNELS_("Abs", AbsFn);
MINITF_REGISTER_UNARY_NUMBER_KERNELS_("Sign", SignFn);
MINITF_REGISTER_UNARY_NUMBER_KERNELS_("Relu", ReluFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Sqrt", SqrtFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Rsqrt", RsqrtFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Exp", ExpFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Log", LogFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Reciprocal", ReciprocalFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Erf", ErfFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Erfc", ErfcFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Sigmoid", SigmoidFn);
MINITF_REGISTER_UNARY_FLOAT_KERNELS_("Tanh", TanhFn);

#undef MINITF_REGISTER_UNARY_NUMBER_KERNELS_
#undef MINITF_REGISTER_UNARY_FLOAT_KERNELS_
#undef MINITF_REGISTER_UNARY_KERNEL_

#ifdef MINITF_WITH_CUDA
template <gpu::UnaryOpKind kKind>
struct CudaUnary {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& x, Tensor* y) {
    return LaunchOnComputeStream(ctx, ctx->op_kernel().type_string(), [&](cudaStream_t stream) {
      return gpu::LaunchUnaryOp(stream, kKind, x.NumElements(), x.data<float>(),
                                y->data<float>());
    });
  }
};

#define MINITF_REGISTER_CUDA_UNARY_KERNEL_(name, kind)                           \
  REGISTER_KERNEL_BUILDER(                                                       \
      Name(name).Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), \
      UnaryOp<CudaUnary<gpu::UnaryOpKind::kind>>)

MINITF_REGISTER_CUDA_UNARY_KERNEL_("Neg", kNeg);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Square", kSquare);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Sqrt", kSqrt);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Rsqrt", kRsqrt);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Exp", kExp);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Log", kLog);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Erf", kErf);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Erfc", kErfc);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Relu", kRelu);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Sigmoid", kSigmoid);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Tanh", kTanh);

#undef MINITF_REGISTER_CUDA_UNARY_KERNEL_

#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
