// Kernels: Sum, Mean and Max on CUDA GPUs (float), reduction_indices int32
// or int64 in host memory.
//
// The input is seen as runs of adjacent dimensions that are all reduced or
// all kept (size-1 dimensions dropped), e.g. [2,3,4,5] over {1,2} is
// [2 | 12 | 5]; each reduced run is folded in one kernel pass over an
// [outer, reduced, inner] view, the last reduced run first, through
// temporaries when there are several. Mean divides in the last pass.
#include <vector>

#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/reduction_ops_gpu.h"
#include "ops/util/reduction_axes.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

using gpu::ReductionKind;

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

template <ReductionKind kKind, bool kMean>
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
      const bool is_reduced = (*reduced)[d];
      if (is_reduced) {
        count *= size;
        if (keep_dims_) out_shape.AddDim(1);
      } else {
        out_shape.AddDim(size);
      }
      if (size == 1) continue;
      if (!runs.empty() && runs.back().reduced == is_reduced) {
        runs.back().size *= size;
      } else {
        runs.push_back({size, is_reduced});
      }
    }

    if (out_shape.num_elements() == 0) {
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
      return;
    }
    if (!AnyReduced(runs)) {
      // Only size-1 dimensions are reduced: the input's values, reshaped.
      Tensor out;
      MINITF_CHECK(out.CopyFrom(input, out_shape));
      ctx->set_output(0, out);
      return;
    }
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());

    Tensor current = input;
    while (AnyReduced(runs)) {
      int k = static_cast<int>(runs.size()) - 1;
      while (!runs[k].reduced) --k;
      int64_t outer = 1, inner = 1;
      for (int i = 0; i < k; ++i) outer *= runs[i].size;
      for (int i = k + 1; i < static_cast<int>(runs.size()); ++i) inner *= runs[i].size;
      const int64_t folded = runs[k].size;
      runs.erase(runs.begin() + k);
      const bool last_pass = !AnyReduced(runs);
      Tensor next;
      if (last_pass) {
        Tensor* out = nullptr;
        OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
        next = *out;  // Shares the output's buffer.
      } else {
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, TensorShape({outer * inner}), &next));
      }
      const float divisor = kMean && last_pass ? static_cast<float>(count) : 1.0f;
      OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchReduceMiddle(
                                           CudaStreamOf(*stream), kKind, current.data<float>(),
                                           outer, folded, inner, divisor, next.data<float>()),
                                       type_string(), *this));
      // `current` may be a temporary: its memory is reused only by work
      // enqueued later on the same stream, after this pass.
      current = next;
    }
  }

 private:
  bool keep_dims_ = false;
};

#define MINITF_REGISTER_CUDA_REDUCTION_KERNEL_(name, ...)                   \
  REGISTER_KERNEL_BUILDER(Name(name)                                        \
                              .Device(DEVICE_GPU)                           \
                              .Platform("CUDA")                             \
                              .TypeConstraint<float>("T")                   \
                              .TypeConstraint("Tidx", {DT_INT32, DT_INT64}) \
                              .HostMemory("reduction_indices"),             \
                          __VA_ARGS__)

MINITF_REGISTER_CUDA_REDUCTION_KERNEL_("Sum", ReductionOp<ReductionKind::kSum, false>);
MINITF_REGISTER_CUDA_REDUCTION_KERNEL_("Mean", ReductionOp<ReductionKind::kSum, true>);
MINITF_REGISTER_CUDA_REDUCTION_KERNEL_("Max", ReductionOp<ReductionKind::kMax, false>);

#undef MINITF_REGISTER_CUDA_REDUCTION_KERNEL_

}  // namespace
}  // namespace minitf
