// Kernels: L2Loss, output = sum(t ** 2) / 2, on CPU (float, double) and on
// CUDA GPUs (float, l2loss_op_gpu.cu). The squares add in SumAccumulator<T>
// (double for float) on every device, so the loss of a large weight tensor
// keeps TensorFlow's accuracy.
#include "ops/kernels/sum_accumulator.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/l2loss_op_gpu.h"
#endif

namespace minitf {
namespace {

// The skeleton every device shares: the scalar output allocated, an empty
// input's loss 0; `Device` supplies only
//   static absl::Status Launch(OpKernelContext*, const Tensor& t, Tensor* output);
template <typename Device>
class L2LossOp : public OpKernel {
 public:
  explicit L2LossOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &output));
    OP_REQUIRES_OK(ctx, Device::Launch(ctx, t, output));
  }
};

template <typename T>
struct CpuL2Loss {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& t, Tensor* output) {
    using Acc = SumAccumulator<T>;
    output->scalar<T>().device(ctx->eigen_cpu_device()) =
        (t.flat<T>().template cast<Acc>().square().sum() / Acc(2)).template cast<T>();
    return absl::OkStatus();
  }
};

REGISTER_KERNEL_BUILDER(Name("L2Loss").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        L2LossOp<CpuL2Loss<float>>);
REGISTER_KERNEL_BUILDER(Name("L2Loss").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                        L2LossOp<CpuL2Loss<double>>);

#ifdef MINITF_WITH_CUDA
struct CudaL2Loss {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& t, Tensor* output) {
    return LaunchOnComputeStream(ctx, "L2Loss", [&](cudaStream_t stream) {
      return gpu::LaunchL2Loss(stream, t.data<float>(), t.NumElements(), output->data<float>());
    });
  }
};
REGISTER_KERNEL_BUILDER(
    Name("L2Loss").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    L2LossOp<CudaL2Loss>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
