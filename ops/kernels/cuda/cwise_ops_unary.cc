// Kernels: Neg, Square, Sqrt, Rsqrt, Exp, Log, Relu, Sigmoid, Tanh, Erf,
// Erfc, ReluGrad and the gradient helpers RsqrtGrad, SqrtGrad, ReciprocalGrad,
// SigmoidGrad and TanhGrad on CUDA GPUs (float). The output reuses an
// input's buffer when no one else holds it, as on the CPU.
#include "ops/kernels/activation_ops_common.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/cwise_ops_gpu.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

using gpu::UnaryOpKind;

template <UnaryOpKind kKind>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchUnaryOp(CudaStreamOf(*stream), kKind,
                                                        x.NumElements(), x.data<float>(),
                                                        y->data<float>()),
                                     type_string(), *this));
  }
};

// backprops = gradients where features > 0, else 0.
class ReluGradOp : public OpKernel {
 public:
  explicit ReluGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& gradients = ctx->input(0);
    const Tensor& features = ctx->input(1);
    OP_REQUIRES_OK(ctx, ValidateReluGradInputs(gradients, features, *this));
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    Tensor* backprops = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->forward_input_or_allocate_output({0, 1}, 0, gradients.shape(), &backprops));
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchReluGrad(CudaStreamOf(*stream),
                                                         gradients.NumElements(),
                                                         gradients.data<float>(),
                                                         features.data<float>(),
                                                         backprops->data<float>()),
                                     "ReluGrad", *this));
  }
};

// z = dL/dx from the op's output y and dy = dL/dy, element by element.
template <gpu::UnaryGradKind kKind>
class UnaryGradOp : public OpKernel {
 public:
  explicit UnaryGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& y = ctx->input(0);
    const Tensor& dy = ctx->input(1);
    OP_REQUIRES_OK(ctx, ValidateUnaryGradInputs(y, dy, *this));
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({1, 0}, 0, y.shape(), &z));
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchUnaryGrad(CudaStreamOf(*stream), kKind,
                                                          y.NumElements(), y.data<float>(),
                                                          dy.data<float>(), z->data<float>()),
                                     type_string(), *this));
  }
};

#define MINITF_REGISTER_CUDA_UNARY_KERNEL_(name, kind)                                    \
  REGISTER_KERNEL_BUILDER(                                                                \
      Name(name).Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), \
      UnaryOp<kind>)

MINITF_REGISTER_CUDA_UNARY_KERNEL_("Neg", UnaryOpKind::kNeg);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Square", UnaryOpKind::kSquare);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Sqrt", UnaryOpKind::kSqrt);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Rsqrt", UnaryOpKind::kRsqrt);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Exp", UnaryOpKind::kExp);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Log", UnaryOpKind::kLog);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Relu", UnaryOpKind::kRelu);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Sigmoid", UnaryOpKind::kSigmoid);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Tanh", UnaryOpKind::kTanh);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Erf", UnaryOpKind::kErf);
MINITF_REGISTER_CUDA_UNARY_KERNEL_("Erfc", UnaryOpKind::kErfc);

#undef MINITF_REGISTER_CUDA_UNARY_KERNEL_

REGISTER_KERNEL_BUILDER(
    Name("ReluGrad").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), ReluGradOp);

#define MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_(name, kind)                         \
  REGISTER_KERNEL_BUILDER(                                                          \
      Name(name).Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"), \
      UnaryGradOp<kind>)

MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_("RsqrtGrad", gpu::UnaryGradKind::kRsqrt);
MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_("SqrtGrad", gpu::UnaryGradKind::kSqrt);
MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_("ReciprocalGrad", gpu::UnaryGradKind::kReciprocal);
MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_("SigmoidGrad", gpu::UnaryGradKind::kSigmoid);
MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_("TanhGrad", gpu::UnaryGradKind::kTanh);

#undef MINITF_REGISTER_CUDA_UNARY_GRAD_KERNEL_

}  // namespace
}  // namespace minitf
