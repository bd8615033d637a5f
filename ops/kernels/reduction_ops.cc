// Kernels: Sum, Mean and Max on CPU for float, double, int32 and int64, with
// int32 or int64 reduction_indices.
//
// The input is viewed as runs of adjacent dimensions that are all reduced or
// all kept (size-1 dimensions are dropped, as they change nothing), e.g.
// [2,3,4,5] reduced over {1,2} is [2 | 12 | 5]. Each reduced run is then
// folded in one pass over a 3-D view [outer, reduced, inner]; inputs with
// several reduced runs take one pass per run, through temporaries. Mean is
// a Sum divided by the number of elements folded into each output.
#include <type_traits>
#include <vector>

#include "ops/util/reduction_axes.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// Each Reducer::Reduce(x, dims) returns the Eigen expression folding `x`
// over `dims`; `x` must outlive its evaluation.
struct SumReducer {
  static constexpr bool kDividesByCount = false;
  template <typename X, typename Dims>
  static auto Reduce(const X& x, const Dims& dims) { return x.sum(dims); }
};
struct MeanReducer {
  static constexpr bool kDividesByCount = true;
  template <typename X, typename Dims>
  static auto Reduce(const X& x, const Dims& dims) { return x.sum(dims); }
};
struct MaxReducer {
  static constexpr bool kDividesByCount = false;
  template <typename X, typename Dims>
  static auto Reduce(const X& x, const Dims& dims) { return x.maximum(dims); }
};

// A run of adjacent input dimensions, merged into one.
struct DimRun {
  int64_t size;
  bool reduced;
};

template <typename T, typename Reducer>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    absl::StatusOr<std::vector<bool>> reduced = ReducedDims(ctx->input(1), input.dims());
    OP_REQUIRES(ctx, reduced.ok(), AttachNodeName(reduced.status(), def()));

    TensorShape out_shape;
    int64_t count = 1;  // Input elements folded into each output element.
    std::vector<DimRun> runs;
    for (int d = 0; d < input.dims(); ++d) {
      const int64_t size = input.dim_size(d);
      const bool r = (*reduced)[d];
      if (r) count *= size;
      if (!r) {
        out_shape.AddDim(size);
      } else if (keep_dims_) {
        out_shape.AddDim(1);
      }
      if (size == 1) continue;
      if (!runs.empty() && runs.back().reduced == r) {
        runs.back().size *= size;
      } else {
        runs.push_back({size, r});
      }
    }

    if (out_shape.num_elements() == 0) {
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
      return;
    }
    if (!HasReducedRun(runs)) {
      // Only size-1 dimensions (or none) are reduced: the values are the
      // input's, seen with the output's shape.
      Tensor out;
      MINITF_CHECK(out.CopyFrom(input, out_shape));
      ctx->set_output(0, out);
      return;
    }

    const Eigen::ThreadPoolDevice& d = ctx->eigen_cpu_device();
    Tensor current = input;
    while (HasReducedRun(runs)) {
      int k = static_cast<int>(runs.size()) - 1;
      while (!runs[k].reduced) --k;
      int64_t outer = 1, inner = 1;
      for (int i = 0; i < k; ++i) outer *= runs[i].size;
      for (int i = k + 1; i < static_cast<int>(runs.size()); ++i) inner *= runs[i].size;
      const int64_t folded = runs[k].size;
      runs.erase(runs.begin() + k);
      Tensor next;
      if (HasReducedRun(runs)) {
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value,
                                               TensorShape({outer * inner}), &next));
      } else {
        Tensor* out = nullptr;
        OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
        next = *out;  // Shares the output's buffer.
      }
      FoldMiddle(d, current, outer, folded, inner, &next);
      current = next;
    }
    if constexpr (Reducer::kDividesByCount) {
      // An integer mean of nothing is 0 (the empty sum); a floating one is
      // 0/0, NaN.
      if (count > 0 || !std::is_integral_v<T>) {
        auto out = current.flat<T>();
        out.device(d) = out / static_cast<T>(count);
      }
    }
  }

 private:
  static bool HasReducedRun(const std::vector<DimRun>& runs) {
    for (const DimRun& r : runs) {
      if (r.reduced) return true;
    }
    return false;
  }

  // `out`[o, i] = fold over r of `in`[o, r, i], for `in` seen as
  // [outer, folded, inner]. Views with outer or inner of 1 use the 2-D
  // forms, which Eigen evaluates faster.
  static void FoldMiddle(const Eigen::ThreadPoolDevice& d, const Tensor& in, int64_t outer,
                         int64_t folded, int64_t inner, Tensor* out) {
    const Eigen::array<int, 1> axis1{1}, axis0{0};
    auto result = out->shaped<T, 1>({outer * inner});
    if (inner == 1) {
      const auto x = in.shaped<T, 2>({outer, folded});
      result.device(d) = Reducer::Reduce(x, axis1);
    } else if (outer == 1) {
      const auto x = in.shaped<T, 2>({folded, inner});
      result.device(d) = Reducer::Reduce(x, axis0);
    } else {
      const auto x = in.shaped<T, 3>({outer, folded, inner});
      auto result2 = out->shaped<T, 2>({outer, inner});
      result2.device(d) = Reducer::Reduce(x, axis1);
    }
  }

  bool keep_dims_ = false;
};

// The types reduction_indices may have.
std::vector<DataType> IndexTypes() { return {DT_INT32, DT_INT64}; }

#define MINITF_REGISTER_REDUCTION_KERNEL_(name, Reducer, T)         \
  REGISTER_KERNEL_BUILDER(Name(name)                                \
                              .Device(DEVICE_CPU)                   \
                              .TypeConstraint<T>("T")               \
                              .TypeConstraint("Tidx", IndexTypes()) \
                              .HostMemory("reduction_indices"),     \
                          ReductionOp<T, Reducer>)
#define MINITF_REGISTER_REDUCTION_KERNELS_(name, Reducer)    \
  MINITF_REGISTER_REDUCTION_KERNEL_(name, Reducer, float);   \
  MINITF_REGISTER_REDUCTION_KERNEL_(name, Reducer, double);  \
  MINITF_REGISTER_REDUCTION_KERNEL_(name, Reducer, int32_t); \
  MINITF_REGISTER_REDUCTION_KERNEL_(name, Reducer, int64_t)

MINITF_REGISTER_REDUCTION_KERNELS_("Sum", SumReducer);
MINITF_REGISTER_REDUCTION_KERNELS_("Mean", MeanReducer);
MINITF_REGISTER_REDUCTION_KERNELS_("Max", MaxReducer);

#undef MINITF_REGISTER_REDUCTION_KERNELS_
#undef MINITF_REGISTER_REDUCTION_KERNEL_

}  // namespace
}  // namespace minitf
