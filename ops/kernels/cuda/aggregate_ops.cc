// Kernel: AddN on CUDA GPUs (float): the first two inputs added into the
// output, then each further one added to it, as flat element-wise Adds
// (cwise_ops_gpu.h). The output reuses input 0's buffer when nothing else
// holds it, as on the CPU.
#include "ops/kernels/aggregate_ops_common.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/cwise_ops_gpu.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, ValidateAddNInputs(ctx, *this));
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    const cudaStream_t cuda_stream = CudaStreamOf(*stream);
    const Tensor& first = ctx->input(0);
    Tensor* sum = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, first.shape(), &sum));
    const int64_t n = first.NumElements();
    if (n == 0) return;
    if (ctx->num_inputs() == 1) {
      if (sum->data<float>() != first.data<float>()) {
        OP_REQUIRES_OK(ctx, LaunchStatus(cudaMemcpyAsync(sum->data<float>(), first.data<float>(),
                                                         first.TotalBytes(),
                                                         cudaMemcpyDeviceToDevice, cuda_stream),
                                         "cudaMemcpyAsync", *this));
      }
      return;
    }
    const gpu::BroadcastLayout flat = gpu::FlatLayout(n);
    const float* partial = first.data<float>();
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchBinaryOp(cuda_stream, gpu::BinaryOpKind::kAdd,
                                                           flat, partial,
                                                           ctx->input(i).data<float>(),
                                                           sum->data<float>()),
                                       "AddN", *this));
      partial = sum->data<float>();
    }
  }
};

REGISTER_KERNEL_BUILDER(
    Name("AddN").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), AddNOp);

}  // namespace
}  // namespace minitf
