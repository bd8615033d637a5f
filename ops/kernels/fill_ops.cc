// Kernels: Fill, ZerosLike and OnesLike, tensors whose every element is one
// value: on the CPU for float, double, int32 and int64 (Fill also for
// bool), and on CUDA GPUs for float, double and int64 (int32 tensors stay
// in host memory on GPU devices, so they have no CUDA kernels).
//
// Fill reads `dims` and the scalar `value` on the host (on a GPU both are in
// host memory) and checks them with FillShape, so every device rejects the
// same inputs with the same errors. On the CPU the elements are written by
// Eigen; on CUDA GPUs by fill_ops_gpu.cu, except ZerosLike's, which is a
// cudaMemsetAsync (all-zero bytes are 0 in each of these types).
#include "ops/util/fill_shape.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/fill_ops_gpu.h"
#endif

namespace minitf {
namespace {

// The skeletons every device shares: the inputs checked, the output
// allocated (nothing more for an empty one); `Device` supplies only
//   static constexpr bool kFillIsExpensive;  // Fill's OpKernel::IsExpensive
//   template <typename T>
//   static absl::Status Fill(OpKernelContext*, T value, Tensor* y);
//   template <typename T>
//   static absl::Status Zero(OpKernelContext*, Tensor* y);
// which set every element of a non-empty `y` to `value`, or to 0.

// output = a tensor of shape `dims` filled with the scalar `value`.
template <typename Device, typename T>
class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    absl::StatusOr<TensorShape> shape = FillShape(ctx->input(0), value);
    OP_REQUIRES(ctx, shape.ok(), Error(shape.status().message()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    if (output->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Device::Fill(ctx, value.scalar<T>()(), output));
  }

  bool IsExpensive() override { return Device::kFillIsExpensive; }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

// y = a tensor shaped like x whose every element is kValue (0 or 1). The
// output reuses x's buffer when no one else holds it.
template <typename Device, typename T, int kValue>
class ConstantLikeOp : public OpKernel {
 public:
  explicit ConstantLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    if (y->NumElements() == 0) return;
    if constexpr (kValue == 0) {
      OP_REQUIRES_OK(ctx, Device::template Zero<T>(ctx, y));
    } else {
      OP_REQUIRES_OK(ctx, Device::Fill(ctx, static_cast<T>(kValue), y));
    }
  }
};

struct CpuFill {
  // Cheap enough to run inline on the executor's thread.
  static constexpr bool kFillIsExpensive = false;
  template <typename T>
  static absl::Status Fill(OpKernelContext* ctx, T value, Tensor* y) {
    auto out = y->flat<T>();
    out.device(ctx->eigen_cpu_device()) = out.constant(value);
    return absl::OkStatus();
  }
  template <typename T>
  static absl::Status Zero(OpKernelContext* ctx, Tensor* y) {
    return Fill(ctx, static_cast<T>(0), y);
  }
};

#define MINITF_REGISTER_FILL(T)                                      \
  REGISTER_KERNEL_BUILDER(Name("Fill")                               \
                              .Device(DEVICE_CPU)                    \
                              .TypeConstraint<T>("T")                \
                              .TypeConstraint<int32_t>("index_type") \
                              .HostMemory("dims"),                   \
                          FillOp<CpuFill, T>);                       \
  REGISTER_KERNEL_BUILDER(Name("Fill")                               \
                              .Device(DEVICE_CPU)                    \
                              .TypeConstraint<T>("T")                \
                              .TypeConstraint<int64_t>("index_type") \
                              .HostMemory("dims"),                   \
                          FillOp<CpuFill, T>)
MINITF_REGISTER_FILL(float);
MINITF_REGISTER_FILL(double);
MINITF_REGISTER_FILL(int32_t);
MINITF_REGISTER_FILL(int64_t);
MINITF_REGISTER_FILL(bool);
#undef MINITF_REGISTER_FILL

#define MINITF_REGISTER_CONSTANT_LIKE(T)                                               \
  REGISTER_KERNEL_BUILDER(Name("ZerosLike").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ConstantLikeOp<CpuFill, T, 0>);                              \
  REGISTER_KERNEL_BUILDER(Name("OnesLike").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
                          ConstantLikeOp<CpuFill, T, 1>)
MINITF_REGISTER_CONSTANT_LIKE(float);
MINITF_REGISTER_CONSTANT_LIKE(double);
MINITF_REGISTER_CONSTANT_LIKE(int32_t);
MINITF_REGISTER_CONSTANT_LIKE(int64_t);
#undef MINITF_REGISTER_CONSTANT_LIKE

#ifdef MINITF_WITH_CUDA
struct CudaFill {
  // A launch on the compute stream, expensive like every CUDA kernel (so
  // AntMan paces it).
  static constexpr bool kFillIsExpensive = true;
  template <typename T>
  static absl::Status Fill(OpKernelContext* ctx, T value, Tensor* y) {
    return LaunchOnComputeStream(ctx, "Fill", [&](cudaStream_t stream) {
      return gpu::LaunchFill<T>(stream, y->NumElements(), value, y->data<T>());
    });
  }
  template <typename T>
  static absl::Status Zero(OpKernelContext* ctx, Tensor* y) {
    return ZeroOnComputeStream(ctx, y);
  }
};

#define MINITF_REGISTER_CUDA_FILL(T)                                                \
  REGISTER_KERNEL_BUILDER(Name("Fill")                                              \
                              .Device(DEVICE_GPU)                                   \
                              .Platform("CUDA")                                     \
                              .TypeConstraint<T>("T")                               \
                              .TypeConstraint<int32_t>("index_type")                \
                              .HostMemory("dims")                                   \
                              .HostMemory("value"),                                 \
                          FillOp<CudaFill, T>);                                     \
  REGISTER_KERNEL_BUILDER(Name("Fill")                                              \
                              .Device(DEVICE_GPU)                                   \
                              .Platform("CUDA")                                     \
                              .TypeConstraint<T>("T")                               \
                              .TypeConstraint<int64_t>("index_type")                \
                              .HostMemory("dims")                                   \
                              .HostMemory("value"),                                 \
                          FillOp<CudaFill, T>);                                     \
  REGISTER_KERNEL_BUILDER(                                                          \
      Name("ZerosLike").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<T>("T"), \
      ConstantLikeOp<CudaFill, T, 0>);                                              \
  REGISTER_KERNEL_BUILDER(                                                          \
      Name("OnesLike").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<T>("T"),  \
      ConstantLikeOp<CudaFill, T, 1>)
MINITF_REGISTER_CUDA_FILL(float);
MINITF_REGISTER_CUDA_FILL(double);
MINITF_REGISTER_CUDA_FILL(int64_t);
#undef MINITF_REGISTER_CUDA_FILL
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
