#include "ops/kernels/reduction_ops_common.h"

#include "ops/util/reduction_axes.h"
#include "platform/logging.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

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

}  // namespace

ReductionOpBase::ReductionOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
}

absl::StatusOr<ReductionPlan> ReductionOpBase::Plan(const Tensor& input,
                                                    const Tensor& axes) const {
  absl::StatusOr<std::vector<bool>> reduced = ReducedDims(axes, input.dims());
  if (!reduced.ok()) return AttachNodeName(reduced.status(), def());

  ReductionPlan plan;
  std::vector<DimRun> runs;
  for (int d = 0; d < input.dims(); ++d) {
    const int64_t size = input.dim_size(d);
    const bool is_reduced = (*reduced)[d];
    if (is_reduced) {
      plan.count *= size;
      if (keep_dims_) plan.out_shape.AddDim(1);
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

bool ReductionOpBase::SetOutputWithoutPasses(OpKernelContext* ctx, const Tensor& input,
                                             const ReductionPlan& plan) const {
  if (plan.out_shape.num_elements() == 0) {
    Tensor* out = nullptr;
    if (absl::Status s = ctx->allocate_output(0, plan.out_shape, &out); !s.ok()) {
      ctx->CtxFailure(s);
    }
    return true;
  }
  if (!plan.passes.empty()) return false;
  // Only size-1 dimensions (or none) are reduced: the values are the
  // input's, seen with the output's shape.
  Tensor out;
  MINITF_CHECK(out.CopyFrom(input, plan.out_shape));
  ctx->set_output(0, out);
  return true;
}

}  // namespace minitf
