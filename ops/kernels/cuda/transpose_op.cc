// Kernel: Transpose on CUDA GPUs, for every dtype, with an int32 or int64
// perm kept in host memory. The perm is checked by PlanTranspose, as on the
// CPU, with the same errors. A perm that keeps every dimension in
// place returns x itself, and one that only moves dimensions of size 1
// returns x's buffer under the new shape; otherwise the transpose is reduced
// to the dimensions that move (transpose_layout.h) and transpose_op.cu
// writes the output on the compute stream.
#include <vector>

#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/transpose_op_gpu.h"
#include "ops/util/transpose_perm.h"
#include "platform/logging.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    absl::StatusOr<TransposePlan> plan = PlanTranspose(x, ctx->input(1), gpu::kMaxTransposeRank);
    OP_REQUIRES(ctx, plan.ok(), AttachNodeName(plan.status(), def()));
    if (plan->identity) {
      ctx->set_output(0, x);
      return;
    }
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    if (x.NumElements() == 0) {
      Tensor* y = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan->out_shape, &y));
      return;
    }
    const gpu::TransposeLayout layout =
        gpu::MakeTransposeLayout(x.dims(), x.shape().dim_sizes().data(), plan->perm.data());
    if (layout.IsCopy()) {
      Tensor y;
      const bool shared = y.CopyFrom(x, plan->out_shape);
      MINITF_CHECK(shared);
      ctx->set_output(0, y);
      return;
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan->out_shape, &y));
    // Every dtype's size is one the kernel moves; another would be
    // cudaErrorInvalidValue, reported naming the node.
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchTranspose(CudaStreamOf(*stream),
                                                          DataTypeSize(x.dtype()), layout,
                                                          x.raw_data(), y->raw_data()),
                                     type_string(), *this));
  }
};

REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int32_t>("Tperm")
                            .HostMemory("perm"),
                        TransposeOp);
REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint("T", AllDataTypes())
                            .TypeConstraint<int64_t>("Tperm")
                            .HostMemory("perm"),
                        TransposeOp);

}  // namespace
}  // namespace minitf
