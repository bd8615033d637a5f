// Kernel: Softmax on CUDA GPUs (float), over the last dimension, each row
// shifted by its maximum first (softmax_ops.cu).
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/softmax_ops_gpu.h"
#include "ops/kernels/softmax_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

class SoftmaxOp : public OpKernel {
 public:
  explicit SoftmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES_OK(ctx, ValidateSoftmaxInput(logits, *this));
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    Tensor* softmax = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, logits.shape(), &softmax));
    if (logits.NumElements() == 0) return;
    const int64_t classes = logits.dim_size(logits.dims() - 1);
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchSoftmax(CudaStreamOf(*stream),
                                                        logits.data<float>(),
                                                        logits.NumElements() / classes, classes,
                                                        softmax->data<float>()),
                                     "Softmax", *this));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Softmax").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), SoftmaxOp);

}  // namespace
}  // namespace minitf
