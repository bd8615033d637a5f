// Kernel: BatchMatMul on CUDA GPUs (float): TensorFlow's v1 op, as the CPU
// kernel implements it (equal batch dimensions, no broadcasting), with the
// CPU kernel's shape checks and errors (BatchMatMulOpBase). All the
// products are one cublasSgemmStridedBatched call. As in MatMul, BLAS is
// column-major and tensors row-major, so the call computes each
// product^T = op(y)^T op(x)^T: the operands swap places and keep their
// adjoint flags (the adjoint is the transpose for float).
#include "ops/kernels/batch_matmul_op_common.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"
#include "stream/stream_executor.h"

namespace minitf {
namespace {

class BatchMatMulOp : public BatchMatMulOpBase {
 public:
  using BatchMatMulOpBase::BatchMatMulOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    absl::StatusOr<BatchMatMulGeometry> g = Geometry(x, y);
    OP_REQUIRES_OK(ctx, g.status());
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g->output_shape, &out));
    if (out->NumElements() == 0) return;
    se::DeviceMemory<float> c = AsDeviceMemory(*out);
    if (g->k == 0) {
      OP_REQUIRES_OK(ctx, AttachNodeName((*stream)->MemZero(&c, out->TotalBytes()), def()));
      return;
    }
    absl::StatusOr<se::BlasSupport*> blas = BlasOf(*stream, *this);
    OP_REQUIRES_OK(ctx, blas.status());
    OP_REQUIRES_OK(
        ctx, AttachNodeName(
                 (*blas)->DoBlasGemmStridedBatched(
                     *stream, BlasTranspose(adj_y_), BlasTranspose(adj_x_), g->n, g->m, g->k, 1.0f,
                     AsDeviceMemory(y), static_cast<int>(g->y_cols), g->y_rows * g->y_cols,
                     AsDeviceMemory(x), static_cast<int>(g->x_cols), g->x_rows * g->x_cols, 0.0f,
                     &c, static_cast<int>(g->n), g->m * g->n, g->batch),
                 def()));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("BatchMatMul").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    BatchMatMulOp);

}  // namespace
}  // namespace minitf
