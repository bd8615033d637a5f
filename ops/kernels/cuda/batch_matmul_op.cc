// Kernels: BatchMatMul and BatchMatMulV2 on CUDA GPUs (float), with the CPU
// kernels' shape checks and errors (BatchMatMulOpBase): equal batch
// dimensions for BatchMatMul, broadcast ones for BatchMatMulV2. With equal
// batch dimensions all the products are one cublasSgemmStridedBatched call;
// broadcast ones take one call per product. As in MatMul, BLAS is
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
    const int64_t x_size = g->x_rows * g->x_cols, y_size = g->y_rows * g->y_cols;
    if (g->x_batch_index.empty()) {
      OP_REQUIRES_OK(ctx, Multiply(*stream, *blas, *g, AsDeviceMemory(x), AsDeviceMemory(y), &c,
                                   g->batch));
      return;
    }
    // Broadcast batch dimensions (BatchMatMulV2): one product per matrix.
    for (int64_t b = 0; b < g->batch; ++b) {
      se::DeviceMemory<float> out_b = Matrix(out->data<float>(), b, g->m * g->n);
      OP_REQUIRES_OK(ctx, Multiply(*stream, *blas, *g,
                                   Matrix(x.data<float>(), g->x_index(b), x_size),
                                   Matrix(y.data<float>(), g->y_index(b), y_size), &out_b, 1));
    }
  }

 private:
  // Matrix `index` of `size` elements from `base`.
  static se::DeviceMemory<float> Matrix(float* base, int64_t index, int64_t size) {
    return se::DeviceMemory<float>::MakeFromByteSize(base + index * size, size * sizeof(float));
  }

  // `batch` consecutive products of op(x) and op(y) into c.
  absl::Status Multiply(se::Stream* stream, se::BlasSupport* blas, const BatchMatMulGeometry& g,
                        const se::DeviceMemory<float>& x, const se::DeviceMemory<float>& y,
                        se::DeviceMemory<float>* c, int64_t batch) const {
    return AttachNodeName(
        blas->DoBlasGemmStridedBatched(stream, BlasTranspose(adj_y_), BlasTranspose(adj_x_), g.n,
                                       g.m, g.k, 1.0f, y, static_cast<int>(g.y_cols),
                                       g.y_rows * g.y_cols, x, static_cast<int>(g.x_cols),
                                       g.x_rows * g.x_cols, 0.0f, c, static_cast<int>(g.n),
                                       g.m * g.n, batch),
        def());
  }
};

REGISTER_KERNEL_BUILDER(
    Name("BatchMatMul").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    BatchMatMulOp);
REGISTER_KERNEL_BUILDER(
    Name("BatchMatMulV2").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    BatchMatMulOp);

}  // namespace
}  // namespace minitf
