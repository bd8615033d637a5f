// Kernels: Add, Sub, Mul, Div, Maximum and Minimum on CUDA GPUs (float),
// with NumPy broadcasting: BinaryOpShared checks and merges the shapes as
// for the CPU kernels, and the merged view becomes the strides
// cwise_ops_binary.cu walks.
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/cwise_ops_gpu.h"
#include "ops/kernels/cwise_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

using gpu::BinaryOpKind;

// Row-major strides of `reshape`, 0 where the operand is stretched.
void OperandStrides(const BCast::Dims& reshape, int64_t* strides) {
  int64_t stride = 1;
  for (int d = static_cast<int>(reshape.size()) - 1; d >= 0; --d) {
    strides[d] = reshape[d] == 1 ? 0 : stride;
    stride *= reshape[d];
  }
}

gpu::BroadcastLayout LayoutOf(const BCast& bcast) {
  gpu::BroadcastLayout layout;
  layout.rank = bcast.rank();
  for (int d = 0; d < bcast.rank(); ++d) layout.result_dims[d] = bcast.result_dims()[d];
  OperandStrides(bcast.x_reshape(), layout.x_strides);
  OperandStrides(bcast.y_reshape(), layout.y_strides);
  return layout;
}

template <BinaryOpKind kKind>
class BinaryOp : public BinaryOpShared {
 public:
  using BinaryOpShared::BinaryOpShared;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    absl::StatusOr<BCast> bcast = Broadcast(x, y);
    OP_REQUIRES_OK(ctx, bcast.status());
    OP_REQUIRES_OK(ctx, CheckBroadcastRank(*bcast, x, y, gpu::kMaxBroadcastRank));
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->forward_input_or_allocate_output({0, 1}, 0, bcast->output_shape(), &z));
    if (z->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchBinaryOp(CudaStreamOf(*stream), kKind,
                                                         LayoutOf(*bcast), x.data<float>(),
                                                         y.data<float>(), z->data<float>()),
                                     type_string(), *this));
  }
};

#define MINITF_REGISTER_CUDA_BINARY_KERNEL_(name, kind)                                     \
  REGISTER_KERNEL_BUILDER(                                                                  \
      Name(name).Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), \
      BinaryOp<kind>)

MINITF_REGISTER_CUDA_BINARY_KERNEL_("Add", BinaryOpKind::kAdd);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Sub", BinaryOpKind::kSub);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Mul", BinaryOpKind::kMul);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Div", BinaryOpKind::kDiv);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Maximum", BinaryOpKind::kMaximum);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Minimum", BinaryOpKind::kMinimum);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("AddV2", BinaryOpKind::kAdd);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("RealDiv", BinaryOpKind::kDiv);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("SquaredDifference", BinaryOpKind::kSquaredDifference);
MINITF_REGISTER_CUDA_BINARY_KERNEL_("Pow", BinaryOpKind::kPow);

#undef MINITF_REGISTER_CUDA_BINARY_KERNEL_

}  // namespace
}  // namespace minitf
