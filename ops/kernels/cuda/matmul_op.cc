// Kernel: MatMul on CUDA GPUs (float) through the executor's BLAS plugin
// (cuBLAS). BLAS is column-major and tensors are row-major, so the kernel
// computes product^T = op(b)^T op(a)^T: a row-major matrix read as
// column-major is its transpose, so the operands swap places and keep their
// transpose flags.
#include "absl/strings/str_cat.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"
#include "stream/stream_executor.h"

namespace minitf {
namespace {

class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2 && b.dims() == 2,
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "both inputs must be matrices, got shapes ",
                                   a.shape().DebugString(), " and ", b.shape().DebugString())),
                               def()));
    const int a_inner = transpose_a_ ? 0 : 1;
    const int b_inner = transpose_b_ ? 1 : 0;
    OP_REQUIRES(ctx, a.dim_size(a_inner) == b.dim_size(b_inner),
                AttachNodeName(
                    absl::InvalidArgumentError(absl::StrCat(
                        "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                        ", In[1]: ", b.shape().DebugString(), transpose_a_ ? " (transpose_a)" : "",
                        transpose_b_ ? " (transpose_b)" : "")),
                    def()));
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const int64_t m = a.dim_size(1 - a_inner);
    const int64_t n = b.dim_size(1 - b_inner);
    const int64_t k = a.dim_size(a_inner);
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

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), MatMulOp);

}  // namespace
}  // namespace minitf
