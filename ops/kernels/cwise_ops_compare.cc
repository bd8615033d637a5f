// Kernels: the elementwise ops with a bool result on CPU, with NumPy
// broadcasting (see bcast.h): the comparisons Less, LessEqual, Greater,
// GreaterEqual (float, double, int32, int64), Equal and NotEqual (also
// bool), and the logical ops LogicalAnd, LogicalOr and LogicalNot (bool).
// The comparisons of float tensors also on CUDA GPUs
// (cwise_ops_binary_gpu.cu).
//
// One kernel template, BinaryPredicateOp<T, Fn, Device>, is BinaryOp of
// cwise_ops_binary.cc with a bool output: BinaryOpShared checks the shapes,
// the template handles what every device shares (the equality ops'
// incompatible shapes, empty results, the broadcast's rank), Device
// evaluates, and Fn only says how two operand expressions combine. Comparisons follow IEEE 754: a NaN operand
// makes every comparison false except NotEqual, which it makes true.
#include <functional>
#include <optional>
#include <type_traits>

#include "ops/kernels/cpu_elementwise_loops.h"
#include "ops/kernels/cwise_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include <type_traits>

#include "ops/kernels/cuda/broadcast_layout.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cwise_ops_gpu.h"
#endif

namespace minitf {
namespace {

// Each Fn::Apply(x, y) returns the Eigen expression of the bool result from
// two operand expressions of equal dimensions. The operands must outlive the
// evaluation of the returned expression.
struct LessFn {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x < y; }
};
struct LessEqualFn {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x <= y; }
};
struct GreaterFn {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x > y; }
};
struct GreaterEqualFn {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x >= y; }
};
// The equality ops also say what they answer, as a scalar, for operands that
// cannot broadcast when their node's incompatible_shape_error is false.
struct EqualFn {
  static constexpr bool kResultIfIncompatible = false;
  template <typename X, typename Y>
  // binaryExpr, not ==: with C++20's reversed operators, Eigen's tensor
  // operator== is ambiguous to clang.
  static auto Apply(const X& x, const Y& y) { return x.binaryExpr(y, std::equal_to<>()); }
};
struct NotEqualFn {
  static constexpr bool kResultIfIncompatible = true;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x.binaryExpr(y, std::not_equal_to<>()); }
};
struct LogicalAndFn {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x.binaryExpr(y, std::logical_and<bool>()); }
};
struct LogicalOrFn {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) { return x.binaryExpr(y, std::logical_or<bool>()); }
};

// Whether Fn's op has the attr incompatible_shape_error.
template <typename Fn>
inline constexpr bool kHasIncompatibleShapeErrorAttr =
    requires { Fn::kResultIfIncompatible; };

// Whether NumPy broadcasting accepts x and y: aligned at their trailing
// dimensions, each pair is equal or has a 1.
bool CanBroadcast(const TensorShape& x, const TensorShape& y) {
  for (int i = 1; i <= x.dims() && i <= y.dims(); ++i) {
    const int64_t dx = x.dim_size(x.dims() - i), dy = y.dim_size(y.dims() - i);
    if (dx != dy && dx != 1 && dy != 1) return false;
  }
  return true;
}

// The comparison of the vectorized float loops Fn is, if it is one.
template <typename Fn>
constexpr std::optional<functor::Comparison> ComparisonOf() {
  if constexpr (std::is_same_v<Fn, LessFn>) return functor::Comparison::kLess;
  if constexpr (std::is_same_v<Fn, LessEqualFn>) return functor::Comparison::kLessEqual;
  if constexpr (std::is_same_v<Fn, GreaterFn>) return functor::Comparison::kGreater;
  if constexpr (std::is_same_v<Fn, GreaterEqualFn>) return functor::Comparison::kGreaterEqual;
  if constexpr (std::is_same_v<Fn, EqualFn>) return functor::Comparison::kEqual;
  if constexpr (std::is_same_v<Fn, NotEqualFn>) return functor::Comparison::kNotEqual;
  return std::nullopt;
}

// `op` with its operands swapped: a < b is b > a.
constexpr functor::Comparison Mirrored(functor::Comparison op) {
  switch (op) {
    case functor::Comparison::kLess: return functor::Comparison::kGreater;
    case functor::Comparison::kLessEqual: return functor::Comparison::kGreaterEqual;
    case functor::Comparison::kGreater: return functor::Comparison::kLess;
    case functor::Comparison::kGreaterEqual: return functor::Comparison::kLessEqual;
    default: return op;  // Equal and NotEqual are symmetric.
  }
}

// The CPU's evaluation: Eigen expressions over the merged broadcast view,
// or the vectorized loops for floats.
struct CpuPredicate {
  // The largest rank of the merged broadcast view (BCast) it handles.
  static constexpr int kMaxBroadcastRank = 5;

  static absl::Status SetScalar(OpKernelContext*, Tensor* z, bool value) {
    z->scalar<bool>()() = value;
    return absl::OkStatus();
  }

  // REQUIRES: bcast.rank() <= kMaxBroadcastRank; z has the result's shape
  // and at least one element.
  template <typename T, typename Fn>
  static absl::Status Evaluate(OpKernelContext* ctx, const BCast& bcast, const Tensor& x,
                               const Tensor& y, Tensor* z) {
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    auto out = z->flat<bool>();
    auto xf = x.flat<T>();
    auto yf = y.flat<T>();
    const int64_t n = z->NumElements();
    if constexpr (std::is_same_v<T, float> && ComparisonOf<Fn>().has_value()) {
      // Floats compared at the machine's vector width
      // (cpu_elementwise_loops.h), against a vector or a scalar.
      const bool x_scalar = x.NumElements() == 1 && y.NumElements() == n;
      const bool y_scalar = y.NumElements() == 1 && x.NumElements() == n;
      if (bcast.IsTrivial() || x_scalar || y_scalar) {
        // A scalar x compares as y against it, the comparison mirrored.
        const bool mirrored = x_scalar && !bcast.IsTrivial();
        const functor::Comparison op =
            mirrored ? Mirrored(*ComparisonOf<Fn>()) : *ComparisonOf<Fn>();
        const float* a = (mirrored ? y : x).template data<float>();
        const float* b = (mirrored ? x : y).template data<float>();
        const int64_t b_step = bcast.IsTrivial() ? 1 : 0;
        bool* o = out.data();
        const functor::ElementwiseLoops& loops = functor::ActiveElementwiseLoops();
        d.parallelFor(n, Eigen::TensorOpCost(2 * sizeof(float), 1, 1),
                      [&](Eigen::Index begin, Eigen::Index end) {
                        loops.compare_float(op, a + begin, b_step == 0 ? b : b + begin, b_step,
                                            o + begin, end - begin);
                      });
        return absl::OkStatus();
      }
    }
    if (bcast.IsTrivial()) {
      out.device(d) = Fn::Apply(xf, yf);
    } else if (x.NumElements() == 1 && y.NumElements() == n) {
      const auto xs = yf.constant(xf(0));
      out.device(d) = Fn::Apply(xs, yf);
    } else if (y.NumElements() == 1 && x.NumElements() == n) {
      const auto ys = xf.constant(yf(0));
      out.device(d) = Fn::Apply(xf, ys);
    } else {
      switch (bcast.rank()) {
        case 1: EvaluateBroadcastOfRank<T, Fn, 1>(d, bcast, x, y, z); break;
        case 2: EvaluateBroadcastOfRank<T, Fn, 2>(d, bcast, x, y, z); break;
        case 3: EvaluateBroadcastOfRank<T, Fn, 3>(d, bcast, x, y, z); break;
        case 4: EvaluateBroadcastOfRank<T, Fn, 4>(d, bcast, x, y, z); break;
        default: EvaluateBroadcastOfRank<T, Fn, 5>(d, bcast, x, y, z); break;
      }
    }
    return absl::OkStatus();
  }

  template <typename T, typename Fn, int N>
  static void EvaluateBroadcastOfRank(const Eigen::ThreadPoolDevice& d, const BCast& bcast,
                                      const Tensor& x, const Tensor& y, Tensor* z) {
    // Eigen expressions refer to TensorMaps by reference: keep them named.
    const auto xm = x.shaped<T, N>(bcast.x_reshape());
    const auto ym = y.shaped<T, N>(bcast.y_reshape());
    auto zm = z->shaped<bool, N>(bcast.result_dims());
    const auto xb = xm.broadcast(ToEigenArray<N>(bcast.x_bcast()));
    const auto yb = ym.broadcast(ToEigenArray<N>(bcast.y_bcast()));
    zm.device(d) = Fn::Apply(xb, yb);
  }
};

template <typename T, typename Fn, typename Device = CpuPredicate>
class BinaryPredicateOp : public BinaryOpShared {
 public:
  explicit BinaryPredicateOp(OpKernelConstruction* ctx) : BinaryOpShared(ctx) {
    if constexpr (kHasIncompatibleShapeErrorAttr<Fn>) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("incompatible_shape_error", &incompatible_shape_error_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if constexpr (kHasIncompatibleShapeErrorAttr<Fn>) {
      if (!incompatible_shape_error_ && !CanBroadcast(x.shape(), y.shape())) {
        Tensor* z = nullptr;
        OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &z));
        OP_REQUIRES_OK(ctx, Device::SetScalar(ctx, z, Fn::kResultIfIncompatible));
        return;
      }
    }
    absl::StatusOr<BCast> bcast = Broadcast(x, y);
    OP_REQUIRES_OK(ctx, bcast.status());
    const TensorShape& out_shape = bcast->output_shape();
    // An operand of the result's type (bool, for Equal, NotEqual and the
    // logical ops) with as many elements as the result is not stretched, so
    // the result may overwrite it element by element.
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, out_shape, &z));
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES_OK(ctx, CheckBroadcastRank(*bcast, x, y, Device::kMaxBroadcastRank));
    OP_REQUIRES_OK(ctx, Device::template Evaluate<T, Fn>(ctx, *bcast, x, y, z));
  }

 private:
  // Constant after construction; read only by ops with the attr.
  bool incompatible_shape_error_ = true;
};

// LogicalNot: y = !x elementwise; the output reuses x's buffer when no one
// else holds it.
class LogicalNotOp : public OpKernel {
 public:
  explicit LogicalNotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    const auto in = x.flat<bool>();
    y->flat<bool>().device(ctx->eigen_cpu_device()) = in.unaryExpr(std::logical_not<bool>());
  }
};

#define MINITF_REGISTER_PREDICATE_KERNEL_(name, Fn, T)                          \
  REGISTER_KERNEL_BUILDER(Name(name).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryPredicateOp<T, Fn>)
#define MINITF_REGISTER_COMPARISON_KERNELS_(name, Fn)   \
  MINITF_REGISTER_PREDICATE_KERNEL_(name, Fn, float);   \
  MINITF_REGISTER_PREDICATE_KERNEL_(name, Fn, double);  \
  MINITF_REGISTER_PREDICATE_KERNEL_(name, Fn, int32_t); \
  MINITF_REGISTER_PREDICATE_KERNEL_(name, Fn, int64_t)

MINITF_REGISTER_COMPARISON_KERNELS_("Less", LessFn);
MINITF_REGISTER_COMPARISON_KERNELS_("LessEqual", LessEqualFn);
MINITF_REGISTER_COMPARISON_KERNELS_("Greater", GreaterFn);
MINITF_REGISTER_COMPARISON_KERNELS_("GreaterEqual", GreaterEqualFn);
MINITF_REGISTER_COMPARISON_KERNELS_("Equal", EqualFn);
MINITF_REGISTER_PREDICATE_KERNEL_("Equal", EqualFn, bool);
MINITF_REGISTER_COMPARISON_KERNELS_("NotEqual", NotEqualFn);
MINITF_REGISTER_PREDICATE_KERNEL_("NotEqual", NotEqualFn, bool);

#undef MINITF_REGISTER_COMPARISON_KERNELS_
#undef MINITF_REGISTER_PREDICATE_KERNEL_

#ifdef MINITF_WITH_CUDA
// The CUDA kernel computing each comparison (float only).
constexpr gpu::PredicateKind CudaKindOf(LessFn) { return gpu::PredicateKind::kLess; }
constexpr gpu::PredicateKind CudaKindOf(LessEqualFn) { return gpu::PredicateKind::kLessEqual; }
constexpr gpu::PredicateKind CudaKindOf(GreaterFn) { return gpu::PredicateKind::kGreater; }
constexpr gpu::PredicateKind CudaKindOf(GreaterEqualFn) {
  return gpu::PredicateKind::kGreaterEqual;
}
constexpr gpu::PredicateKind CudaKindOf(EqualFn) { return gpu::PredicateKind::kEqual; }
constexpr gpu::PredicateKind CudaKindOf(NotEqualFn) { return gpu::PredicateKind::kNotEqual; }

struct CudaPredicate {
  static constexpr int kMaxBroadcastRank = gpu::kMaxBroadcastRank;

  static absl::Status SetScalar(OpKernelContext* ctx, Tensor* z, bool value) {
    return LaunchOnComputeStream(ctx, "cudaMemsetAsync", [&](cudaStream_t stream) {
      return cudaMemsetAsync(z->raw_data(), value ? 1 : 0, sizeof(bool), stream);
    });
  }

  template <typename T, typename Fn>
  static absl::Status Evaluate(OpKernelContext* ctx, const BCast& bcast, const Tensor& x,
                               const Tensor& y, Tensor* z) {
    static_assert(std::is_same_v<T, float>, "the CUDA comparisons are float only");
    return LaunchOnComputeStream(ctx, ctx->op_kernel().type_string(), [&](cudaStream_t stream) {
      return gpu::LaunchPredicateOp(stream, CudaKindOf(Fn()), BroadcastLayoutOf(bcast),
                                    x.data<float>(), y.data<float>(), z->data<bool>());
    });
  }
};

#define MINITF_REGISTER_CUDA_PREDICATE_KERNEL_(name, Fn)                         \
  REGISTER_KERNEL_BUILDER(                                                       \
      Name(name).Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), \
      BinaryPredicateOp<float, Fn, CudaPredicate>)

MINITF_REGISTER_CUDA_PREDICATE_KERNEL_("Less", LessFn);
MINITF_REGISTER_CUDA_PREDICATE_KERNEL_("LessEqual", LessEqualFn);
MINITF_REGISTER_CUDA_PREDICATE_KERNEL_("Greater", GreaterFn);
MINITF_REGISTER_CUDA_PREDICATE_KERNEL_("GreaterEqual", GreaterEqualFn);
MINITF_REGISTER_CUDA_PREDICATE_KERNEL_("Equal", EqualFn);
MINITF_REGISTER_CUDA_PREDICATE_KERNEL_("NotEqual", NotEqualFn);

#undef MINITF_REGISTER_CUDA_PREDICATE_KERNEL_
#endif  // MINITF_WITH_CUDA

REGISTER_KERNEL_BUILDER(Name("LogicalAnd").Device(DEVICE_CPU),
                        BinaryPredicateOp<bool, LogicalAndFn>);
REGISTER_KERNEL_BUILDER(Name("LogicalOr").Device(DEVICE_CPU), BinaryPredicateOp<bool, LogicalOrFn>);
REGISTER_KERNEL_BUILDER(Name("LogicalNot").Device(DEVICE_CPU), LogicalNotOp);

}  // namespace
}  // namespace minitf
