// Kernels: Fill, ZerosLike and OnesLike on CUDA GPUs, for float, double and
// int64 (int32 tensors stay in host memory on GPU devices, so they have no
// CUDA kernels). Fill reads `dims` and the scalar `value` on the host (both
// in host memory) and checks them as the CPU kernel does, with the same
// errors; the elements are written by fill_ops.cu. ZerosLike is a
// cudaMemsetAsync (all-zero bytes are 0 in each of these types).
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/fill_ops_gpu.h"
#include "ops/util/fill_shape.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// output = a tensor of shape `dims` filled with the scalar `value`.
template <typename T>
class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    absl::StatusOr<TensorShape> shape = FillShape(ctx->input(0), value);
    OP_REQUIRES(ctx, shape.ok(), Error(shape.status().message()));
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchFill<T>(CudaStreamOf(*stream),
                                                        output->NumElements(),
                                                        value.scalar<T>()(), output->data<T>()),
                                     "Fill", *this));
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

// y = a tensor shaped like x whose every element is kValue (0 or 1). The
// output reuses x's buffer when no one else holds it, as on the CPU.
template <typename T, int kValue>
class ConstantLikeOp : public OpKernel {
 public:
  explicit ConstantLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    if (y->NumElements() == 0) return;
    if constexpr (kValue == 0) {
      OP_REQUIRES_OK(ctx, LaunchStatus(cudaMemsetAsync(y->raw_data(), 0, y->TotalBytes(),
                                                       CudaStreamOf(*stream)),
                                       "cudaMemsetAsync", *this));
    } else {
      OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchFill<T>(CudaStreamOf(*stream), y->NumElements(),
                                                          static_cast<T>(kValue), y->data<T>()),
                                       "Fill", *this));
    }
  }
};

#define MINITF_REGISTER_CUDA_FILL_(T)                                               \
  REGISTER_KERNEL_BUILDER(Name("Fill")                                              \
                              .Device(DEVICE_GPU)                                   \
                              .Platform("CUDA")                                     \
                              .TypeConstraint<T>("T")                               \
                              .TypeConstraint<int32_t>("index_type")                \
                              .HostMemory("dims")                                   \
                              .HostMemory("value"),                                 \
                          FillOp<T>);                                               \
  REGISTER_KERNEL_BUILDER(Name("Fill")                                              \
                              .Device(DEVICE_GPU)                                   \
                              .Platform("CUDA")                                     \
                              .TypeConstraint<T>("T")                               \
                              .TypeConstraint<int64_t>("index_type")                \
                              .HostMemory("dims")                                   \
                              .HostMemory("value"),                                 \
                          FillOp<T>);                                               \
  REGISTER_KERNEL_BUILDER(                                                          \
      Name("ZerosLike").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<T>("T"), \
      ConstantLikeOp<T, 0>);                                                        \
  REGISTER_KERNEL_BUILDER(                                                          \
      Name("OnesLike").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<T>("T"),  \
      ConstantLikeOp<T, 1>)

MINITF_REGISTER_CUDA_FILL_(float);
MINITF_REGISTER_CUDA_FILL_(double);
MINITF_REGISTER_CUDA_FILL_(int64_t);

#undef MINITF_REGISTER_CUDA_FILL_

}  // namespace
}  // namespace minitf
