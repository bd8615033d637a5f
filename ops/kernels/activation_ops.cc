// Kernel: ReluGrad, on the CPU and, for float, on CUDA GPUs
// (cwise_ops_unary_gpu.cu; Relu, Sigmoid and Tanh are unary ops,
// cwise_ops_unary.cc). It writes into an input's buffer when nothing else
// uses it. One skeleton; a device supplies only the arithmetic.
#include <type_traits>

#include "ops/kernels/activation_ops_common.h"
#include "ops/kernels/cpu_vector_loops.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cwise_ops_gpu.h"
#endif

namespace minitf {
namespace {

// backprops = gradients where features > 0, else 0. Both inputs have one
// shape. `Device` supplies
//   static absl::Status Launch(OpKernelContext*, const Tensor& gradients,
//                              const Tensor& features, Tensor* backprops);
template <typename Device>
class ReluGradOp : public OpKernel {
 public:
  explicit ReluGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& gradients = ctx->input(0);
    const Tensor& features = ctx->input(1);
    OP_REQUIRES_OK(ctx, ValidateReluGradInputs(gradients, features, *this));
    Tensor* backprops = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->forward_input_or_allocate_output({0, 1}, 0, gradients.shape(), &backprops));
    if (gradients.NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Device::Launch(ctx, gradients, features, backprops));
  }
};

template <typename T>
struct CpuReluGrad {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& gradients,
                             const Tensor& features, Tensor* backprops) {
    if constexpr (std::is_same_v<T, float>) {
      // At the machine's vector width (Eigen's select walks one value at a
      // time); either input's buffer may be the output's.
      const functor::VectorLoops& loops = functor::ActiveVectorLoops();
      const float* g = gradients.data<float>();
      const float* f = features.data<float>();
      float* out = backprops->data<float>();
      ctx->eigen_cpu_device().parallelFor(
          gradients.NumElements(), Eigen::TensorOpCost(2 * sizeof(float), sizeof(float), 1),
          [&](Eigen::Index begin, Eigen::Index end) {
            loops.relu_grad_float(g + begin, f + begin, out + begin, end - begin);
          });
    } else {
      auto f = features.flat<T>();
      backprops->flat<T>().device(ctx->eigen_cpu_device()) =
          (f > f.constant(T(0))).select(gradients.flat<T>(), f.constant(T(0)));
    }
    return absl::OkStatus();
  }
};

#define MINITF_REGISTER_RELU_GRAD(T)                                                   \
  REGISTER_KERNEL_BUILDER(Name("ReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ReluGradOp<CpuReluGrad<T>>)
MINITF_REGISTER_RELU_GRAD(float);
MINITF_REGISTER_RELU_GRAD(double);
MINITF_REGISTER_RELU_GRAD(int32_t);
MINITF_REGISTER_RELU_GRAD(int64_t);
#undef MINITF_REGISTER_RELU_GRAD

#ifdef MINITF_WITH_CUDA
struct CudaReluGrad {
  static absl::Status Launch(OpKernelContext* ctx, const Tensor& gradients,
                             const Tensor& features, Tensor* backprops) {
    return LaunchOnComputeStream(ctx, "ReluGrad", [&](cudaStream_t stream) {
      return gpu::LaunchReluGrad(stream, gradients.NumElements(), gradients.data<float>(),
                                 features.data<float>(), backprops->data<float>());
    });
  }
};

REGISTER_KERNEL_BUILDER(
    Name("ReluGrad").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    ReluGradOp<CudaReluGrad>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
