// Kernels: Add, AddV2, Sub, Mul, Div, FloorDiv, FloorMod, Pow,
// SquaredDifference, Maximum, Minimum on CPU, with NumPy broadcasting (see
// bcast.h), for float, double, int32 and int64; RealDiv for float and double.
// On CUDA GPUs: Add, AddV2, Sub, Mul, Div, RealDiv, Pow, SquaredDifference,
// Maximum and Minimum for float, the merged broadcast view walked by
// cwise_ops_binary_gpu.cu.
//
// One kernel template, BinaryOp<Device, T, Fn>, has its shapes checked by
// BinaryOpShared (as for the comparison ops) and allocates the result; Fn
// only says how two operand expressions combine, and Device how the result
// is computed: Eigen on the CPU, picking an evaluation strategy; on CUDA the
// launch of Fn's kernel (gpu::BinaryOpKind).
#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>

#include "ops/kernels/cpu_broadcast_rows.h"
#include "ops/kernels/cpu_elementwise_loops.h"
#include "ops/kernels/cwise_ops_common.h"
#include "platform/logging.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/broadcast_layout.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cwise_ops_gpu.h"
#endif

namespace minitf {
namespace {

// Each Fn::Apply<T>(x, y) returns the Eigen expression of the result from two
// operand expressions of equal dimensions. The operands must outlive the
// evaluation of the returned expression.
struct AddFn {
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x + y; }
};
struct SubFn {
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x - y; }
};
struct MulFn {
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x * y; }
};
struct MaximumFn {
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x.cwiseMax(y); }
};
struct MinimumFn {
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x.cwiseMin(y); }
};

// C++ integer division (truncating toward zero), except that dividing the
// lowest value by -1 wraps instead of trapping. REQUIRES: b != 0.
template <typename T>
struct TruncatingDivide {
  T operator()(T a, T b) const {
    if (b == -1) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(a));
    return a / b;
  }
};

struct DivFn {
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    if constexpr (std::is_integral_v<T>) {
      return x.binaryExpr(y, TruncatingDivide<T>());
    } else {
      return x / y;
    }
  }
};

// Integer division rounding toward negative infinity: the truncated
// quotient, less one when the remainder is nonzero and the operands' signs
// differ. REQUIRES: b != 0.
template <typename T>
struct FloorDivide {
  T operator()(T a, T b) const {
    const T q = TruncatingDivide<T>()(a, b);
    if (b != -1 && a % b != 0 && ((a < 0) != (b < 0))) return q - 1;
    return q;
  }
};

// The remainder of FloorDivide, with the divisor's sign: for integers
// a - floor(a / b) * b; for floats fmod moved into the divisor's sign.
// REQUIRES for integers: b != 0.
template <typename T>
struct FloorModulo {
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == -1) return 0;  // Also for the lowest value, where a % b would trap.
      const T r = a % b;
      return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
    } else {
      const T r = std::fmod(a, b);
      return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
    }
  }
};

struct FloorDivFn {
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    if constexpr (std::is_integral_v<T>) {
      return x.binaryExpr(y, FloorDivide<T>());
    } else {
      return (x / y).floor();
    }
  }
};
struct FloorModFn {
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x.binaryExpr(y, FloorModulo<T>()); }
};

// a^b; for integers by repeated squaring (overflow wraps). REQUIRES for
// integers: b >= 0.
template <typename T>
struct Power {
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      U result = 1, base = static_cast<U>(a);
      for (T e = b; e > 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      return static_cast<T>(result);
    } else {
      return std::pow(a, b);
    }
  }
};
struct PowFn {
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x.binaryExpr(y, Power<T>()); }
};

// a^k for a whole exponent 0 <= k <= kMaxWholeExponent, by squaring and
// multiplying: GELU's x^3 costs two multiplications instead of std::pow's
// logarithm and exponential (within an ulp or two of it, an infinity or NaN
// where it has one, and 1 for k = 0, NaN included).
constexpr int kMaxWholeExponent = 16;
template <typename T>
struct WholePower {
  int k;
  T operator()(T a) const {
    T result = T(1);
    T base = a;
    for (int e = k; e > 0; e >>= 1) {
      if (e & 1) result *= base;
      base *= base;
    }
    return result;
  }
};

// The whole exponent a scalar y holds, if it is one in [0, kMaxWholeExponent].
template <typename T>
std::optional<int> WholeExponent(const Tensor& y) {
  if (y.NumElements() != 1) return std::nullopt;
  const T v = y.flat<T>()(0);
  if (!(v >= T(0) && v <= T(kMaxWholeExponent)) || v != std::floor(v)) return std::nullopt;
  return static_cast<int>(v);
}
struct SquaredDifferenceFn {
  template <typename T, typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return (x - y).square(); }
};

// Whether Fn must see no zero in an integer divisor before it runs.
template <typename Fn, typename T>
inline constexpr bool kRejectsIntegerZeroDivisor =
    (std::is_same_v<Fn, DivFn> || std::is_same_v<Fn, FloorDivFn> ||
     std::is_same_v<Fn, FloorModFn>) &&
    std::is_integral_v<T>;
// Whether Fn must see no negative integer exponent before it runs.
template <typename Fn, typename T>
inline constexpr bool kRejectsNegativeIntegerExponent =
    std::is_same_v<Fn, PowFn> && std::is_integral_v<T>;

template <typename T>
bool ContainsZero(const Tensor& t) {
  const T* begin = t.flat<T>().data();
  const T* end = begin + t.NumElements();
  return std::find(begin, end, T{0}) != end;
}

template <typename T>
bool ContainsNegative(const Tensor& t) {
  const T* begin = t.flat<T>().data();
  const T* end = begin + t.NumElements();
  return std::any_of(begin, end, [](T v) { return v < 0; });
}

// The skeleton every device shares: the shapes broadcast, operands an
// integer Fn cannot take rejected, the result allocated (in an operand's
// buffer when that operand is not stretched and nothing else holds it) and
// the merged view's rank checked; `Device` supplies only
//   static constexpr int kMaxBroadcastRank;  // the merged ranks it can walk
//   template <typename T, typename Fn>
//   static absl::Status Launch(OpKernelContext*, const BCast&, const Tensor& x,
//                              const Tensor& y, Tensor* z);  // z not empty
template <typename Device, typename T, typename Fn>
class BinaryOp : public BinaryOpShared {
 public:
  using BinaryOpShared::BinaryOpShared;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    absl::StatusOr<BCast> bcast = Broadcast(x, y);
    OP_REQUIRES_OK(ctx, bcast.status());
    const TensorShape& out_shape = bcast->output_shape();
    if constexpr (kRejectsIntegerZeroDivisor<Fn, T>) {
      OP_REQUIRES(ctx, out_shape.num_elements() == 0 || !ContainsZero<T>(y),
                  AttachNodeName(absl::InvalidArgumentError("Integer division by zero"), def()));
    }
    if constexpr (kRejectsNegativeIntegerExponent<Fn, T>) {
      OP_REQUIRES(ctx, out_shape.num_elements() == 0 || !ContainsNegative<T>(y),
                  AttachNodeName(absl::InvalidArgumentError(
                                     "Integers to negative integer powers are not allowed"),
                                 def()));
    }
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, out_shape, &z));
    // An empty result walks no view, however often its dimensions alternate.
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES_OK(ctx, CheckBroadcastRank(*bcast, x, y, Device::kMaxBroadcastRank));
    OP_REQUIRES_OK(ctx, Device::template Launch<T, Fn>(ctx, *bcast, x, y, z));
  }
};

struct CpuBinary {
  // Eigen evaluates the merged view with one template per rank up to this.
  static constexpr int kMaxBroadcastRank = 5;

  template <typename T, typename Fn>
  static absl::Status Launch(OpKernelContext* ctx, const BCast& bcast, const Tensor& x,
                             const Tensor& y, Tensor* z) {
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    auto out = z->flat<T>();
    auto xf = x.flat<T>();
    auto yf = y.flat<T>();
    const int64_t n = z->NumElements();
    if (bcast.IsTrivial()) {
      out.device(d) = Fn::template Apply<T>(xf, yf);
    } else if (x.NumElements() == 1 && y.NumElements() == n) {
      const auto xs = yf.constant(xf(0));
      out.device(d) = Fn::template Apply<T>(xs, yf);
    } else if (y.NumElements() == 1 && x.NumElements() == n) {
      if constexpr (std::is_same_v<Fn, PowFn> && std::is_floating_point_v<T>) {
        if (const std::optional<int> k = WholeExponent<T>(y); k.has_value()) {
          if constexpr (std::is_same_v<T, float>) {
            // The same multiplications at the machine's vector width
            // (cpu_elementwise_loops.h).
            const functor::ElementwiseLoops& loops = functor::ActiveElementwiseLoops();
            const float* in = x.data<float>();
            float* o = z->data<float>();
            d.parallelFor(n, Eigen::TensorOpCost(sizeof(float), sizeof(float), 5),
                          [&](Eigen::Index begin, Eigen::Index end) {
                            loops.whole_power_float(in + begin, *k, o + begin, end - begin);
                          });
          } else {
            out.device(d) = xf.unaryExpr(WholePower<T>{*k});
          }
          return absl::OkStatus();
        }
      }
      const auto ys = xf.constant(yf(0));
      out.device(d) = Fn::template Apply<T>(xf, ys);
    } else if (const std::optional<functor::BroadcastRows> rows = functor::BroadcastRowsOf(bcast);
               rows.has_value()) {
      // Each row a flat expression: Eigen's broadcast of such a view copies
      // the repeated operand into blocks first (cpu_broadcast_rows.h).
      const auto combine = [](const auto& a, const auto& b) { return Fn::template Apply<T>(a, b); };
      functor::CombineRows<T>(d, *rows, x.data<T>(), y.data<T>(), z->data<T>(), combine);
    } else {
      EvaluateBroadcast<T, Fn>(d, bcast, x, y, z);
    }
    return absl::OkStatus();
  }

 private:
  // REQUIRES: bcast.rank() <= kMaxBroadcastRank (BinaryOp checks).
  template <typename T, typename Fn>
  static void EvaluateBroadcast(const Eigen::ThreadPoolDevice& d, const BCast& bcast,
                                const Tensor& x, const Tensor& y, Tensor* z) {
    static_assert(kMaxBroadcastRank == 5, "one case per rank");
    MINITF_CHECK(bcast.rank() <= kMaxBroadcastRank);
    switch (bcast.rank()) {
      case 1: return EvaluateBroadcastOfRank<T, Fn, 1>(d, bcast, x, y, z);
      case 2: return EvaluateBroadcastOfRank<T, Fn, 2>(d, bcast, x, y, z);
      case 3: return EvaluateBroadcastOfRank<T, Fn, 3>(d, bcast, x, y, z);
      case 4: return EvaluateBroadcastOfRank<T, Fn, 4>(d, bcast, x, y, z);
      default: return EvaluateBroadcastOfRank<T, Fn, 5>(d, bcast, x, y, z);
    }
  }

  template <typename T, typename Fn, int N>
  static void EvaluateBroadcastOfRank(const Eigen::ThreadPoolDevice& d, const BCast& bcast,
                                      const Tensor& x, const Tensor& y, Tensor* z) {
    // Eigen expressions refer to TensorMaps by reference: keep them named.
    const auto xm = x.shaped<T, N>(bcast.x_reshape());
    const auto ym = y.shaped<T, N>(bcast.y_reshape());
    auto zm = z->shaped<T, N>(bcast.result_dims());
    const auto xb = xm.broadcast(ToEigenArray<N>(bcast.x_bcast()));
    const auto yb = ym.broadcast(ToEigenArray<N>(bcast.y_bcast()));
    zm.device(d) = Fn::template Apply<T>(xb, yb);
  }
};

#define MINITF_REGISTER_BINARY_KERNEL_(name, Fn, T)                             \
  REGISTER_KERNEL_BUILDER(Name(name).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryOp<CpuBinary, T, Fn>)
#define MINITF_REGISTER_BINARY_KERNELS_(name, Fn)    \
  MINITF_REGISTER_BINARY_KERNEL_(name, Fn, float);   \
  MINITF_REGISTER_BINARY_KERNEL_(name, Fn, double);  \
  MINITF_REGISTER_BINARY_KERNEL_(name, Fn, int32_t); \
  MINITF_REGISTER_BINARY_KERNEL_(name, Fn, int64_t)

MINITF_REGISTER_BINARY_KERNELS_("Add", AddFn);
MINITF_REGISTER_BINARY_KERNELS_("AddV2", AddFn);
MINITF_REGISTER_BINARY_KERNELS_("Sub", SubFn);
MINITF_REGISTER_BINARY_KERNELS_("Mul", MulFn);
MINITF_REGISTER_BINARY_KERNELS_("Div", DivFn);
MINITF_REGISTER_BINARY_KERNEL_("RealDiv", DivFn, float);
MINITF_REGISTER_BINARY_KERNEL_("RealDiv", DivFn, double);
MINITF_REGISTER_BINARY_KERNELS_("FloorDiv", FloorDivFn);
MINITF_REGISTER_BINARY_KERNELS_("FloorMod", FloorModFn);
MINITF_REGISTER_BINARY_KERNELS_("Pow", PowFn);
MINITF_REGISTER_BINARY_KERNELS_("SquaredDifference", SquaredDifferenceFn);
MINITF_REGISTER_BINARY_KERNELS_("Maximum", MaximumFn);
MINITF_REGISTER_BINARY_KERNELS_("Minimum", MinimumFn);

#undef MINITF_REGISTER_BINARY_KERNELS_
#undef MINITF_REGISTER_BINARY_KERNEL_

#ifdef MINITF_WITH_CUDA
// The CUDA kernel computing each Fn (float only).
constexpr gpu::BinaryOpKind CudaKindOf(AddFn) { return gpu::BinaryOpKind::kAdd; }
constexpr gpu::BinaryOpKind CudaKindOf(SubFn) { return gpu::BinaryOpKind::kSub; }
constexpr gpu::BinaryOpKind CudaKindOf(MulFn) { return gpu::BinaryOpKind::kMul; }
constexpr gpu::BinaryOpKind CudaKindOf(DivFn) { return gpu::BinaryOpKind::kDiv; }
constexpr gpu::BinaryOpKind CudaKindOf(MaximumFn) { return gpu::BinaryOpKind::kMaximum; }
constexpr gpu::BinaryOpKind CudaKindOf(MinimumFn) { return gpu::BinaryOpKind::kMinimum; }
constexpr gpu::BinaryOpKind CudaKindOf(SquaredDifferenceFn) {
  return gpu::BinaryOpKind::kSquaredDifference;
}
constexpr gpu::BinaryOpKind CudaKindOf(PowFn) { return gpu::BinaryOpKind::kPow; }

struct CudaBinary {
  static constexpr int kMaxBroadcastRank = gpu::kMaxBroadcastRank;

  template <typename T, typename Fn>
  static absl::Status Launch(OpKernelContext* ctx, const BCast& bcast, const Tensor& x,
                             const Tensor& y, Tensor* z) {
    static_assert(std::is_same_v<T, float>, "the CUDA kernels are float only");
    return LaunchOnComputeStream(ctx, ctx->op_kernel().type_string(), [&](cudaStream_t stream) {
      return gpu::LaunchBinaryOp(stream, CudaKindOf(Fn()), BroadcastLayoutOf(bcast), x.data<float>(),
                                 y.data<float>(), z->data<float>());
    });
  }
};

#define MINITF_REGISTER_CUDA_BINARY_KERNEL_(name, Fn)                            \
  REGISTER_KERNEL_BUILDER(                                                       \
      Name(name).Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), \
      BinaryOp<CudaBinary, float, Fn>)

MINITF_REGISTER_CUDA_BINARY_KERNEL_("Add", AddFn);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Sub", SubFn);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Mul", MulFn);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Div", DivFn);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Maximum", MaximumFn);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Minimum", MinimumFn);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("AddV2", AddFn);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("RealDiv", DivFn);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("SquaredDifference", SquaredDifferenceFn);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Pow", PowFn);

#undef MINITF_REGISTER_CUDA_BINARY_KERNEL_
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
