// ReductionOpBase: what every device's Sum, Mean and Max kernel shares,
// TensorFlow's ReductionHelper: keep_dims read once when the kernel is
// built, the reduction_indices checked (ReducedDims), and the passes that
// fold the input into the output. Subclasses fold.
//
// The input is seen as runs of adjacent dimensions that are all reduced or
// all kept (size-1 dimensions are dropped, as they change nothing), e.g.
// [2,3,4,5] reduced over {1,2} is [2 | 12 | 5]. Each reduced run is folded
// in one pass over a 3-D view [outer, folded, inner], the last reduced run
// first; every pass but the last writes a temporary of outer * inner
// elements, the last writes the output.
//
//   absl::StatusOr<ReductionPlan> plan = Plan(input, ctx->input(1));
//   OP_REQUIRES_OK(ctx, plan.status());
//   if (SetOutputWithoutPasses(ctx, input, *plan)) return;
//   run plan->passes in order.
#ifndef MINITF_OPS_KERNELS_REDUCTION_OPS_COMMON_H_
#define MINITF_OPS_KERNELS_REDUCTION_OPS_COMMON_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf {

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

class ReductionOpBase : public OpKernel {
 public:
  // Reads keep_dims.
  explicit ReductionOpBase(OpKernelConstruction* ctx);

 protected:
  // The reduction of `input` over `axes`; ReducedDims's errors, naming the node.
  absl::StatusOr<ReductionPlan> Plan(const Tensor& input, const Tensor& axes) const;

  // True when the output needs no pass, having set it: an empty output is
  // allocated, and when only size-1 dimensions are reduced the output is
  // `input`'s buffer under out_shape. An allocation error is left in `ctx`.
  // False when plan.passes must run (the output is then not empty).
  bool SetOutputWithoutPasses(OpKernelContext* ctx, const Tensor& input,
                              const ReductionPlan& plan) const;

  bool keep_dims_ = false;  // Constant after construction.
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_REDUCTION_OPS_COMMON_H_
