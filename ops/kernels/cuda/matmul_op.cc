// Kernel: MatMul on CUDA GPUs (float) through the executor's BLAS plugin
// (cuBLAS). BLAS is column-major and tensors are row-major, so the kernel
// computes product^T = op(b)^T op(a)^T: a row-major matrix read as
// column-major is its transpose, so the operands swap places and keep their
// transpose flags. The operands are checked by MatMulOpBase, as on the CPU.
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/matmul_op_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"
#include "stream/stream_executor.h"

namespace minitf {
namespace {

class MatMulOp : public MatMulOpBase {
 public:
  using MatMulOpBase::MatMulOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    absl::StatusOr<MatMulPlan> plan = Plan(a, b);
    OP_REQUIRES_OK(ctx, plan.status());
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    const int64_t m = plan->m, n = plan->n, k = plan->k;
    Tensor* product = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &product));
    if (product->NumElements() == 0) return;
    se::DeviceMemory<float> c = AsDeviceMemory(*product);
    if (k == 0) {
      OP_REQUIRES_OK(ctx, AttachNodeName((*stream)->MemZero(&c, product->TotalBytes()), def()));
      return;
    }
    absl::StatusOr<se::BlasSupport*> blas = BlasOf(*stream, *this);
    OP_REQUIRES_OK(ctx, blas.status());
    OP_REQUIRES_OK(
        ctx, AttachNodeName(
                 (*blas)->DoBlasGemm(*stream, BlasTranspose(transpose_b_),
                                     BlasTranspose(transpose_a_), n, m, k, 1.0f,
                                     AsDeviceMemory(b), static_cast<int>(b.dim_size(1)),
                                     AsDeviceMemory(a), static_cast<int>(a.dim_size(1)), 0.0f,
                                     &c, static_cast<int>(n)),
                 def()));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), MatMulOp);

}  // namespace
}  // namespace minitf
