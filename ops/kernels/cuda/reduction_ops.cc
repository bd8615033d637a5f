// Kernels: Sum, Mean and Max on CUDA GPUs (float), reduction_indices int32
// or int64 in host memory.
//
// The axes are checked, and the input folded in the passes of
// ReductionOpBase's plan, as on the CPU: one kernel pass per run of reduced
// dimensions over an [outer, folded, inner] view, through temporaries when
// there are several. Mean divides in the last pass.
#include <vector>

#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/reduction_ops_gpu.h"
#include "ops/kernels/reduction_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

using gpu::ReductionKind;

template <ReductionKind kKind, bool kMean>
class ReductionOp : public ReductionOpBase {
 public:
  using ReductionOpBase::ReductionOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    absl::StatusOr<ReductionPlan> plan = Plan(input, ctx->input(1));
    OP_REQUIRES_OK(ctx, plan.status());
    if (SetOutputWithoutPasses(ctx, input, *plan)) return;
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);

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
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, TensorShape({pass.outer * pass.inner}),
                                               &next));
      }
      const float divisor = kMean && last_pass ? static_cast<float>(plan->count) : 1.0f;
      OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchReduceMiddle(
                                           CudaStreamOf(*stream), kKind, current.data<float>(),
                                           pass.outer, pass.folded, pass.inner, divisor,
                                           next.data<float>()),
                                       type_string(), *this));
      // `current` may be a temporary: its memory is reused only by work
      // enqueued later on the same stream, after this pass.
      current = next;
    }
  }
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
