// Kernels: FusedBatchNorm, FusedBatchNormV3 and their gradients on CUDA GPUs
// (float), with the CPU kernels' checks (fused_batch_norm_op_common.h),
// outputs and formulas; the arithmetic is fused_batch_norm_op.cu's.
// reserve_space_3 is a scalar 0 and the gradient's reserve_space_4/5 are
// empty, as on the CPU.
#include <limits>

#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/fill_ops_gpu.h"
#include "ops/kernels/cuda/fused_batch_norm_op_gpu.h"
#include "ops/kernels/fused_batch_norm_op_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

gpu::BatchNormDims DimsOf(const BatchNormLayout& l) {
  return {.outer = l.outer, .channels = l.channels, .inner = l.inner};
}

class FusedBatchNormOp : public FusedBatchNormOpBase {
 public:
  using FusedBatchNormOpBase::FusedBatchNormOpBase;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<BatchNormLayout> layout = ForwardLayoutOf(ctx);
    OP_REQUIRES_OK(ctx, layout.status());
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    const cudaStream_t cuda_stream = CudaStreamOf(*stream);
    const Tensor& x = ctx->input(0);
    Tensor* out[5] = {};
    Tensor* reserve_3 = nullptr;
    OP_REQUIRES_OK(ctx, AllocateForwardOutputs(ctx, *layout, out, &reserve_3));
    if (reserve_3 != nullptr) {
      OP_REQUIRES_OK(ctx, LaunchStatus(cudaMemsetAsync(reserve_3->data<float>(), 0,
                                                       sizeof(float), cuda_stream),
                                       "cudaMemsetAsync", *this));
    }
    if (x.NumElements() == 0) {
      // No statistics: NaN, as in TensorFlow.
      for (int i = 1; i < 5; ++i) {
        OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchFill<float>(
                                             cuda_stream, layout->channels,
                                             std::numeric_limits<float>::quiet_NaN(),
                                             out[i]->data<float>()),
                                         "Fill", *this));
      }
      return;
    }
    const gpu::BatchNormForward args{x.data<float>(),
                                     ctx->input(1).data<float>(),
                                     ctx->input(2).data<float>(),
                                     ctx->input(3).data<float>(),
                                     ctx->input(4).data<float>(),
                                     out[0]->data<float>(),
                                     out[1]->data<float>(),
                                     out[2]->data<float>(),
                                     out[3]->data<float>(),
                                     out[4]->data<float>()};
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchBatchNormForward(
                                         cuda_stream, DimsOf(*layout), epsilon_,
                                         exponential_avg_factor_, is_training_, args),
                                     "BatchNormForward", *this));
  }
};

class FusedBatchNormGradOp : public FusedBatchNormOpBase {
 public:
  using FusedBatchNormOpBase::FusedBatchNormOpBase;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<BatchNormLayout> layout = GradLayoutOf(ctx);
    OP_REQUIRES_OK(ctx, layout.status());
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    const cudaStream_t cuda_stream = CudaStreamOf(*stream);
    const Tensor& x = ctx->input(1);
    Tensor* out[3] = {};
    OP_REQUIRES_OK(ctx, AllocateGradOutputs(ctx, *layout, out));
    if (x.NumElements() == 0) {
      for (int i = 1; i <= 2; ++i) {
        OP_REQUIRES_OK(ctx, LaunchStatus(cudaMemsetAsync(out[i]->data<float>(), 0,
                                                         out[i]->TotalBytes(), cuda_stream),
                                         "cudaMemsetAsync", *this));
      }
      return;
    }
    const gpu::BatchNormBackward args{ctx->input(0).data<float>(), x.data<float>(),
                                      ctx->input(2).data<float>(), ctx->input(3).data<float>(),
                                      ctx->input(4).data<float>(), out[0]->data<float>(),
                                      out[1]->data<float>(),       out[2]->data<float>()};
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchBatchNormBackward(cuda_stream, DimsOf(*layout),
                                                                  epsilon_, is_training_, args),
                                     "BatchNormBackward", *this));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNorm").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    FusedBatchNormOp);
REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV3")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U"),
                        FusedBatchNormOp);
REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNormGrad").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    FusedBatchNormGradOp);
REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV3")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U"),
                        FusedBatchNormGradOp);

}  // namespace
}  // namespace minitf
