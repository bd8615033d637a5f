// Kernels: Sum, Mean, Max, Min and Prod on the CPU for float, double, int32
// and int64, and Sum, Mean and Max on CUDA GPUs for float; reduction_indices
// are int32 or int64, in host memory.
//
// Every device shares ReductionOp, TensorFlow's ReductionHelper: keep_dims
// is read once when the kernel is built, the reduction_indices checked
// (ReducedDims), and the input folded into the output in the passes of a
// ReductionPlan. The input is seen as runs of adjacent dimensions that are
// all reduced or all kept (size-1 dimensions are dropped, as they change
// nothing), e.g. [2,3,4,5] reduced over {1,2} is [2 | 12 | 5]. Each reduced
// run is folded in one pass over a 3-D view [outer, folded, inner], the
// last reduced run first; every pass but the last writes a temporary of
// outer * inner elements, the last writes the output. Mean is a Sum divided
// by the number of elements folded into each output, in its last pass.
// Only the fold differs per device: Eigen on the intra-op pool on the CPU,
// reduction_ops_gpu.cu on the compute stream on CUDA GPUs.
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/kernels/cpu_column_sum.h"
#include "ops/kernels/cpu_row_sum.h"
#include "ops/kernels/sum_accumulator.h"
#include "ops/util/reduction_axes.h"
#include "platform/logging.h"
#include "platform/status_macros.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/reduction_ops_gpu.h"
#endif

namespace minitf {
namespace {

// out[o, i] = fold over f of in[o, f, i].
struct ReductionPass {
  int64_t outer = 1;
  int64_t folded = 1;
  int64_t inner = 1;
};

struct ReductionPlan {
  TensorShape out_shape;    // With 1 for each reduced dimension under keep_dims.
  int64_t count = 1;        // Input elements folded into each output element (Mean's divisor).
  std::vector<ReductionPass> passes;  // Empty when only size-1 dimensions are reduced.
};

// Adjacent input dimensions merged into one.
struct DimRun {
  int64_t size;
  bool reduced;
};

bool AnyReduced(const std::vector<DimRun>& runs) {
  for (const DimRun& run : runs) {
    if (run.reduced) return true;
  }
  return false;
}

// The reduction of `input` over `axes`; ReducedDims's errors, without the
// node's name (the caller attaches it).
absl::StatusOr<ReductionPlan> PlanReduction(const Tensor& input, const Tensor& axes,
                                            bool keep_dims) {
  absl::StatusOr<std::vector<bool>> reduced = ReducedDims(axes, input.dims());
  if (!reduced.ok()) return reduced.status();

  ReductionPlan plan;
  std::vector<DimRun> runs;
  for (int d = 0; d < input.dims(); ++d) {
    const int64_t size = input.dim_size(d);
    const bool is_reduced = (*reduced)[d];
    if (is_reduced) {
      plan.count *= size;
      if (keep_dims) plan.out_shape.AddDim(1);
    } else {
      plan.out_shape.AddDim(size);
    }
    if (size == 1) continue;
    if (!runs.empty() && runs.back().reduced == is_reduced) {
      runs.back().size *= size;
    } else {
      runs.push_back({size, is_reduced});
    }
  }

  while (AnyReduced(runs)) {
    int k = static_cast<int>(runs.size()) - 1;
    while (!runs[k].reduced) --k;
    ReductionPass pass;
    for (int i = 0; i < k; ++i) pass.outer *= runs[i].size;
    for (int i = k + 1; i < static_cast<int>(runs.size()); ++i) pass.inner *= runs[i].size;
    pass.folded = runs[k].size;
    runs.erase(runs.begin() + k);
    plan.passes.push_back(pass);
  }
  return plan;
}

// Each Reducer::Reduce(x, dims) returns the Eigen expression folding `x`
// over `dims`; `x` must outlive its evaluation.
struct SumReducer {
  static constexpr bool kDividesByCount = false;
  static constexpr bool kAdds = true;  // Columns add in SumAccumulator<T> (FoldMiddle).
  template <typename X, typename Dims>
  static auto Reduce(const X& x, const Dims& dims) { return x.sum(dims); }
};
struct MeanReducer {
  static constexpr bool kDividesByCount = true;
  static constexpr bool kAdds = true;
  template <typename X, typename Dims>
  static auto Reduce(const X& x, const Dims& dims) { return x.sum(dims); }
};
struct MaxReducer {
  static constexpr bool kDividesByCount = false;
  static constexpr bool kAdds = false;
  template <typename X, typename Dims>
  static auto Reduce(const X& x, const Dims& dims) { return x.maximum(dims); }
};
struct MinReducer {
  static constexpr bool kDividesByCount = false;
  static constexpr bool kAdds = false;
  template <typename X, typename Dims>
  static auto Reduce(const X& x, const Dims& dims) { return x.minimum(dims); }
};
struct ProdReducer {
  static constexpr bool kDividesByCount = false;
  static constexpr bool kAdds = false;
  template <typename X, typename Dims>
  static auto Reduce(const X& x, const Dims& dims) { return x.prod(dims); }
};

// The skeleton every device shares: the axes planned and checked, an empty
// output allocated, a reduction over size-1 dimensions only answered with
// the input's buffer, and the buffers of the passes allocated; `Device`
// supplies only
//   template <typename T, typename Reducer>
//   static absl::Status Fold(OpKernelContext*, const Tensor& in, const ReductionPass& pass,
//                            std::optional<int64_t> divisor, Tensor* out);
// which writes `out` = fold of `in` by `pass`, divided by `divisor` when it
// has one (Mean's last pass).
template <typename Device, typename T, typename Reducer>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    absl::StatusOr<ReductionPlan> plan = PlanReduction(input, ctx->input(1), keep_dims_);
    OP_REQUIRES(ctx, plan.ok(), AttachNodeName(plan.status(), def()));
    if (plan->out_shape.num_elements() == 0) {
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan->out_shape, &out));
      return;
    }
    if (plan->passes.empty()) {
      // Only size-1 dimensions (or none) are reduced: the values are the
      // input's, seen with the output's shape.
      Tensor out;
      MINITF_CHECK(out.CopyFrom(input, plan->out_shape));
      ctx->set_output(0, out);
      return;
    }

    Tensor current = input;
    for (size_t p = 0; p < plan->passes.size(); ++p) {
      const ReductionPass& pass = plan->passes[p];
      const bool last_pass = p + 1 == plan->passes.size();
      Tensor next;
      if (last_pass) {
        Tensor* out = nullptr;
        OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan->out_shape, &out));
        next = *out;  // Shares the output's buffer.
      } else {
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value,
                                               TensorShape({pass.outer * pass.inner}), &next));
      }
      std::optional<int64_t> divisor;
      if (Reducer::kDividesByCount && last_pass) divisor = plan->count;
      OP_REQUIRES_OK(ctx, Device::template Fold<T, Reducer>(ctx, current, pass, divisor, &next));
      // `current` may be a temporary: on a GPU its memory is reused only by
      // work enqueued later on the same stream, after this pass.
      current = next;
    }
  }

 private:
  bool keep_dims_ = false;  // Constant after construction.
};

struct CpuReduce {
  template <typename T, typename Reducer>
  static absl::Status Fold(OpKernelContext* ctx, const Tensor& in, const ReductionPass& pass,
                           std::optional<int64_t> divisor, Tensor* out) {
    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    FoldMiddle<T, Reducer>(d, in, pass.outer, pass.folded, pass.inner, out);
    // An integer mean of nothing is 0 (the empty sum); a floating one is
    // 0/0, NaN.
    if (divisor.has_value() && (*divisor > 0 || !std::is_integral_v<T>)) {
      auto result = out->flat<T>();
      result.device(d) = result / static_cast<T>(*divisor);
    }
    return absl::OkStatus();
  }

 private:
  // `out`[o, i] = fold over r of `in`[o, r, i], for `in` seen as
  // [outer, folded, inner]. Views with outer or inner of 1 use the 2-D
  // forms, and every axis is known when compiling (Eigen's IndexList), for
  // Eigen's vectorized evaluators: with axes known only at run time it
  // folds one value at a time, 3 to 7 times slower.
  // Floating sums add in SumAccumulator<T> (double for float) at the
  // machine's vector width, in an order that depends only on the shape:
  // along the contiguous dimension (inner 1: rows, or everything) through
  // functor::SumInnerAxis, in 32 lanes per row; along any other through
  // functor::SumMiddleAxis, eight rows at a time into blocks of columns.
  // TensorFlow adds floats in float, by Eigen's blocks of 1024 and then
  // pairwise: its answers and these differ in the last bits, these being the
  // nearer to the exact sum. Integer sums and the other folds are Eigen's.
  template <typename T, typename Reducer>
  static void FoldMiddle(const Eigen::ThreadPoolDevice& d, const Tensor& in, int64_t outer,
                         int64_t folded, int64_t inner, Tensor* out) {
    using Acc = std::conditional_t<Reducer::kAdds, SumAccumulator<T>, T>;
    const Eigen::IndexList<Eigen::type2index<1>> axis1;
    const Eigen::IndexList<Eigen::type2index<0>> axis0;
    auto result = out->shaped<T, 1>({outer * inner});
    if constexpr (Reducer::kAdds && std::is_floating_point_v<T>) {
      if (inner == 1) {
        functor::SumInnerAxis<T>(d, in.data<T>(), outer, folded, out->data<T>());
      } else {
        functor::SumMiddleAxis<T>(d, in.data<T>(), outer, folded, inner, out->data<T>());
      }
    } else if (inner == 1) {
      const auto x = in.shaped<T, 2>({outer, folded});
      result.device(d) = Reducer::Reduce(x, axis1);
    } else if (outer == 1) {
      const auto x = in.shaped<T, 2>({folded, inner}).template cast<Acc>();
      result.device(d) = Reducer::Reduce(x, axis0).template cast<T>();
    } else {
      const auto x = in.shaped<T, 3>({outer, folded, inner}).template cast<Acc>();
      auto result2 = out->shaped<T, 2>({outer, inner});
      result2.device(d) = Reducer::Reduce(x, axis1).template cast<T>();
    }
  }
};

// The types reduction_indices may have.
std::vector<DataType> IndexTypes() { return {DT_INT32, DT_INT64}; }

#define MINITF_REGISTER_REDUCTION_KERNEL_(name, Reducer, T)         \
  REGISTER_KERNEL_BUILDER(Name(name)                                \
                              .Device(DEVICE_CPU)                   \
                              .TypeConstraint<T>("T")               \
                              .TypeConstraint("Tidx", IndexTypes()) \
                              .HostMemory("reduction_indices"),     \
                          ReductionOp<CpuReduce, T, Reducer>)
#define MINITF_REGISTER_REDUCTION_KERNELS_(name, Reducer)    \
  MINITF_REGISTER_REDUCTION_KERNEL_(name, Reducer, float);   \
  MINITF_REGISTER_REDUCTION_KERNEL_(name, Reducer, double);  \
  MINITF_REGISTER_REDUCTION_KERNEL_(name, Reducer, int32_t); \
  MINITF_REGISTER_REDUCTION_KERNEL_(name, Reducer, int64_t)

MINITF_REGISTER_REDUCTION_KERNELS_("Sum", SumReducer);
MINITF_REGISTER_REDUCTION_KERNELS_("Mean", MeanReducer);
MINITF_REGISTER_REDUCTION_KERNELS_("Max", MaxReducer);
MINITF_REGISTER_REDUCTION_KERNELS_("Min", MinReducer);
MINITF_REGISTER_REDUCTION_KERNELS_("Prod", ProdReducer);

#undef MINITF_REGISTER_REDUCTION_KERNELS_
#undef MINITF_REGISTER_REDUCTION_KERNEL_

#ifdef MINITF_WITH_CUDA
// The CUDA kernel's fold for each Reducer it has (Mean is a Sum, divided).
template <typename Reducer>
constexpr gpu::ReductionKind CudaReductionKind() {
  if constexpr (std::is_same_v<Reducer, MaxReducer>) {
    return gpu::ReductionKind::kMax;
  } else {
    static_assert(std::is_same_v<Reducer, SumReducer> || std::is_same_v<Reducer, MeanReducer>,
                  "the CUDA reduction kernel folds by sum or max only");
    return gpu::ReductionKind::kSum;
  }
}

struct CudaReduce {
  template <typename T, typename Reducer>
  static absl::Status Fold(OpKernelContext* ctx, const Tensor& in, const ReductionPass& pass,
                           std::optional<int64_t> divisor, Tensor* out) {
    static_assert(std::is_same_v<T, float>, "the CUDA reduction kernel folds float only");
    // The partials of a fold cut into chunks: a temporary of the step,
    // freed after the kernels that use it (the compute stream orders them).
    Tensor scratch;
    MINITF_RETURN_IF_ERROR(AllocateScratch(
        ctx, gpu::ReduceMiddleScratchBytes(pass.outer, pass.folded, pass.inner), &scratch));
    return LaunchOnComputeStream(ctx, ctx->op_kernel().type_string(), [&](cudaStream_t stream) {
      return gpu::LaunchReduceMiddle(stream, CudaReductionKind<Reducer>(), in.data<float>(),
                                     pass.outer, pass.folded, pass.inner,
                                     divisor.has_value() ? static_cast<float>(*divisor) : 1.0f,
                                     out->data<float>(), ScratchOf(scratch));
    });
  }
};

#define MINITF_REGISTER_CUDA_REDUCTION_KERNEL_(name, Reducer)       \
  REGISTER_KERNEL_BUILDER(Name(name)                                \
                              .Device(DEVICE_GPU)                   \
                              .Platform("CUDA")                     \
                              .TypeConstraint<float>("T")           \
                              .TypeConstraint("Tidx", IndexTypes()) \
                              .HostMemory("reduction_indices"),     \
                          ReductionOp<CudaReduce, float, Reducer>)

MINITF_REGISTER_CUDA_REDUCTION_KERNEL_("Sum", SumReducer);
MINITF_REGISTER_CUDA_REDUCTION_KERNEL_("Mean", MeanReducer);
MINITF_REGISTER_CUDA_REDUCTION_KERNEL_("Max", MaxReducer);

#undef MINITF_REGISTER_CUDA_REDUCTION_KERNEL_
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
