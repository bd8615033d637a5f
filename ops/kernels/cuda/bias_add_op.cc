// Kernels: BiasAdd and BiasAddGrad on CUDA GPUs (float). BiasAdd: value
// seen as [rows, channels] plus the bias repeated down the rows, as a
// broadcast Add (cwise_ops_gpu.h). BiasAddGrad: out_backprop seen as
// [outer, channels, inner] summed over outer and inner with the reduction
// kernel (reduction_ops_gpu.h), in two passes when inner > 1.
#include "ops/kernels/bias_add_op_common.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/cwise_ops_gpu.h"
#include "ops/kernels/cuda/reduction_ops_gpu.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, CheckBiasAddDataFormat(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    absl::StatusOr<int64_t> bias_channels = BiasAddChannels(value, bias, *this);
    OP_REQUIRES_OK(ctx, bias_channels.status());
    const int64_t channels = *bias_channels;
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, value.shape(), &output));
    if (value.NumElements() == 0) return;
    gpu::BroadcastLayout layout;
    layout.rank = 2;
    layout.result_dims[0] = value.NumElements() / channels;
    layout.result_dims[1] = channels;
    layout.x_strides[0] = channels;
    layout.x_strides[1] = 1;
    layout.y_strides[0] = 0;  // The same bias row for every row of value.
    layout.y_strides[1] = 1;
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchBinaryOp(CudaStreamOf(*stream),
                                                         gpu::BinaryOpKind::kAdd, layout,
                                                         value.data<float>(), bias.data<float>(),
                                                         output->data<float>()),
                                     "BiasAdd", *this));
  }
};

class BiasAddGradOp : public BiasAddGradOpBase {
 public:
  using BiasAddGradOpBase::BiasAddGradOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& out_backprop = ctx->input(0);
    absl::StatusOr<BiasGradView> view = ViewOf(ctx);
    OP_REQUIRES_OK(ctx, view.status());
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    const cudaStream_t cuda_stream = CudaStreamOf(*stream);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({view->channels}), &output));
    const float* rows = out_backprop.data<float>();
    Tensor partial;
    if (view->inner > 1) {
      // [outer, channels, inner] -> [outer, channels], then over outer.
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, TensorShape({view->outer, view->channels}),
                                             &partial));
      OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchReduceMiddle(
                                           cuda_stream, gpu::ReductionKind::kSum, rows,
                                           view->outer * view->channels, view->inner, 1, 1.0f,
                                           partial.data<float>()),
                                       "BiasAddGrad", *this));
      rows = partial.data<float>();
    }
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchReduceMiddle(cuda_stream, gpu::ReductionKind::kSum,
                                                             rows, 1, view->outer, view->channels,
                                                             1.0f, output->data<float>()),
                                     "BiasAddGrad", *this));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("BiasAdd").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), BiasAddOp);
REGISTER_KERNEL_BUILDER(
    Name("BiasAddGrad").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    BiasAddGradOp);

}  // namespace
}  // namespace minitf
