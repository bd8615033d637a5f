// Kernel: MatMul, product = op(a) * op(b) with op transposing as transpose_a
// and transpose_b say, on the CPU (float and double: OpenBLAS, cpu_gemm.h;
// int32 and int64: an Eigen tensor contraction; both on the intra-op pool) and on CUDA GPUs (float: the
// executor's BLAS plugin, cuBLAS). Every device checks the operands the same
// way, allocates the product, skips an empty one and zeroes one with k = 0;
// only the multiplication differs. _FusedMatMul (the remapper's MatMul +
// BiasAdd + activation) runs on both: the product, then the bias and the
// activation in one pass (on CUDA, cuBLASLt's epilogue in the product's
// kernel for the bias alone and the tanh GELU; for the others a kernel of
// its own after cuBLAS's product, fused_bias_activation_gpu.h). With
// fused_ops [BiasAdd, Add] (a residual connection's Add, fused on the CPU
// only, as TensorFlow's oneDNN build) the pass adds the bias and an addend.
//
// BLAS is column-major and tensors are row-major, so the CUDA kernel
// computes product^T = op(b)^T op(a)^T: a row-major matrix read as
// column-major is its transpose, so the operands swap places and keep their
// transpose flags.
#include <cstdint>
#include <string>
#include <vector>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ops/kernels/cpu_gemm.h"
#include "ops/kernels/fused_bias_activation.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "platform/status_macros.h"
#include "stream/blas.h"
#endif

namespace minitf {
namespace {

// op(a) is a or its transpose as transpose_a says, likewise op(b).
struct MatMulPlan {
  bool transpose_a = false;
  bool transpose_b = false;
  int a_inner = 1;  // The dimension of a that is contracted.
  int b_inner = 0;  // The dimension of b that is contracted.
  int64_t m = 0, n = 0, k = 0;  // op(a) is [m, k], op(b) is [k, n].
};

// TensorFlow's MatMulOp<Device, T>: transpose_a and transpose_b read once
// when the kernel is built, the operands checked, the product allocated;
// `Device` supplies only
//   static absl::Status SetZero(OpKernelContext*, Tensor* product);
//   static absl::Status Multiply(OpKernelContext*, const MatMulPlan&, const Tensor& a,
//                                const Tensor& b, Tensor* product);  // REQUIRES: k > 0.
template <typename Device>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    ComputeProduct(ctx, [&](const MatMulPlan& plan, const Tensor& a, const Tensor& b,
                            Tensor* product) {
      return Device::Multiply(ctx, plan, a, b, product);
    });
  }

 protected:
  bool transpose_b() const { return transpose_b_; }

  // Checks the operands, allocates the product and fills it: zeros when
  // k = 0, else multiply(plan, a, b, product). The product, or null when
  // it is empty or the kernel failed.
  template <typename Multiply>
  Tensor* ComputeProduct(OpKernelContext* ctx, Multiply multiply) {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    absl::StatusOr<MatMulPlan> plan = Plan(a, b);
    Tensor* product = nullptr;
    absl::Status s = plan.status();
    if (s.ok()) s = ctx->allocate_output(0, TensorShape({plan->m, plan->n}), &product);
    if (s.ok() && product->NumElements() == 0) return nullptr;
    if (s.ok()) s = plan->k == 0 ? Device::SetZero(ctx, product) : multiply(*plan, a, b, product);
    if (!s.ok()) {
      ctx->CtxFailure(s);
      return nullptr;
    }
    return product;
  }

 private:
  // InvalidArgument naming the node when a or b is not a matrix or their
  // inner dimensions differ ("Matrix size-incompatible: In[0]: ...").
  absl::StatusOr<MatMulPlan> Plan(const Tensor& a, const Tensor& b) const {
    if (a.dims() != 2 || b.dims() != 2) {
      return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                "both inputs must be matrices, got shapes ",
                                a.shape().DebugString(), " and ", b.shape().DebugString())),
                            def());
    }
    MatMulPlan plan;
    plan.transpose_a = transpose_a_;
    plan.transpose_b = transpose_b_;
    plan.a_inner = transpose_a_ ? 0 : 1;
    plan.b_inner = transpose_b_ ? 1 : 0;
    if (a.dim_size(plan.a_inner) != b.dim_size(plan.b_inner)) {
      return AttachNodeName(
          absl::InvalidArgumentError(absl::StrCat(
              "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
              ", In[1]: ", b.shape().DebugString(), transpose_a_ ? " (transpose_a)" : "",
              transpose_b_ ? " (transpose_b)" : "")),
          def());
    }
    plan.m = a.dim_size(1 - plan.a_inner);
    plan.n = b.dim_size(1 - plan.b_inner);
    plan.k = a.dim_size(plan.a_inner);
    if (MultiplyWithoutOverflow(plan.m, plan.n) < 0) {
      return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                "the product of ", a.shape().DebugString(), " and ",
                                b.shape().DebugString(), " has more than 2^63-1 elements")),
                            def());
    }
    return plan;
  }

  // Constant after construction.
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

// _FusedMatMul (the remapper's MatMul + BiasAdd + activation): MatMul's
// product, then the bias and the activation in one pass over it (BiasAdd's
// and the activation's kernels would take one each). `Device` adds
//   static absl::Status AddBiasAndActivate(OpKernelContext*, FusedActivation,
//                                          const Tensor& bias, Tensor* product);
// and may add, for a GEMM that applies them in its own kernel,
//   static absl::StatusOr<bool> MultiplyWithEpilogue(
//       OpKernelContext*, const MatMulPlan&, const Tensor& a, const Tensor& b,
//       FusedActivation, const Tensor& bias, Tensor* product);  // false: not done
template <typename Device>
class FusedMatMulOp : public MatMulOp<Device> {
 public:
  explicit FusedMatMulOp(OpKernelConstruction* ctx) : MatMulOp<Device>(ctx) {
    absl::StatusOr<bool> addend = FusedOpsAddAnAddend(*ctx);
    OP_REQUIRES_OK(ctx, addend.status());
    with_addend_ = *addend;
    if (with_addend_) {
      OP_REQUIRES(ctx, kAddsAnAddend,
                  absl::UnimplementedError("fused_ops [BiasAdd, Add] has a CPU kernel only"));
      return;
    }
    absl::StatusOr<FusedActivation> activation = FusedActivationFromAttrs(*ctx);
    OP_REQUIRES_OK(ctx, activation.status());
    activation_ = *activation;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& bias = ctx->input(2);
    OP_REQUIRES(ctx, bias.dims() == 1,
                absl::InvalidArgumentError(absl::StrCat("bias must be a vector, got shape ",
                                                        bias.shape().DebugString())));
    const int64_t n = ctx->input(1).dims() == 2
                          ? ctx->input(1).dim_size(this->transpose_b() ? 0 : 1)
                          : -1;
    OP_REQUIRES(ctx, n < 0 || bias.dim_size(0) == n,
                absl::InvalidArgumentError(absl::StrCat(
                    "Must provide as many biases as the last dimension of the product: ",
                    bias.dim_size(0), " vs. ", n)));
    // Where the device's GEMM can add the bias (and the activation) itself,
    // it does; otherwise a pass over the product adds them.
    if (with_addend_) {
      ComputeWithAddend(ctx, bias);
      return;
    }
    bool fused = false;
    Tensor* product = this->ComputeProduct(
        ctx, [&](const MatMulPlan& plan, const Tensor& a, const Tensor& b,
                 Tensor* out) -> absl::Status {
          if constexpr (requires { &Device::MultiplyWithEpilogue; }) {
            absl::StatusOr<bool> done =
                Device::MultiplyWithEpilogue(ctx, plan, a, b, activation_, bias, out);
            if (!done.ok()) return done.status();
            fused = *done;
            if (fused) return absl::OkStatus();
          }
          return Device::Multiply(ctx, plan, a, b, out);
        });
    if (product == nullptr || fused) return;
    OP_REQUIRES_OK(ctx, Device::AddBiasAndActivate(ctx, activation_, bias, product));
  }

 private:
  static constexpr bool kAddsAnAddend = requires { &Device::AddBiasAndAddend; };

  // product + bias + args[1], the addend of the product's shape.
  void ComputeWithAddend(OpKernelContext* ctx, const Tensor& bias) {
    if constexpr (kAddsAnAddend) {
      const Tensor& addend = ctx->input(3);
      Tensor* product = this->ComputeProduct(
          ctx, [&](const MatMulPlan& plan, const Tensor& a, const Tensor& b, Tensor* out) {
            return Device::Multiply(ctx, plan, a, b, out);
          });
      if (product == nullptr) return;
      OP_REQUIRES(ctx, addend.shape() == product->shape(),
                  AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                     "Incompatible shapes: ", product->shape().DebugString(),
                                     " vs. ", addend.shape().DebugString(),
                                     " (the product and the addend)")),
                                 this->def()));
      OP_REQUIRES_OK(ctx, Device::AddBiasAndAddend(ctx, bias, addend, product));
    }
  }

  // Constant after construction.
  FusedActivation activation_ = FusedActivation::kNone;
  bool with_addend_ = false;  // fused_ops [BiasAdd, Add].
};

template <typename T>
struct CpuMatMul {
  static absl::Status SetZero(OpKernelContext* ctx, Tensor* product) {
    auto out = product->flat<T>();
    out.device(ctx->eigen_cpu_device()) = out.constant(T(0));
    return absl::OkStatus();
  }

  static absl::Status Multiply(OpKernelContext* ctx, const MatMulPlan& plan, const Tensor& a,
                               const Tensor& b, Tensor* product) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      functor::Gemm<T>(&ctx->eigen_cpu_device(),
                       functor::PackedGemm<T>(plan.a_inner == 0, plan.b_inner == 1, plan.m,
                                              plan.n, plan.k, a.data<T>(), b.data<T>(),
                                              product->data<T>()));
      return absl::OkStatus();
    }
    const Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> contract_dims = {
        Eigen::IndexPair<Eigen::DenseIndex>(plan.a_inner, plan.b_inner)};
    auto out = product->matrix<T>();
    out.device(ctx->eigen_cpu_device()) = a.matrix<T>().contract(b.matrix<T>(), contract_dims);
    return absl::OkStatus();
  }

  static absl::Status AddBiasAndActivate(OpKernelContext* ctx, FusedActivation activation,
                                         const Tensor& bias, Tensor* product) {
    minitf::AddBiasAndActivate<T>(ctx->eigen_cpu_device(), activation, bias, product);
    return absl::OkStatus();
  }

  static absl::Status AddBiasAndAddend(OpKernelContext* ctx, const Tensor& bias,
                                       const Tensor& addend, Tensor* product) {
    minitf::AddBiasAndAddend<T>(ctx->eigen_cpu_device(), bias, addend, product);
    return absl::OkStatus();
  }
};

#define MINITF_REGISTER_MATMUL(T)                                                 \
  REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          MatMulOp<CpuMatMul<T>>)
MINITF_REGISTER_MATMUL(float);
MINITF_REGISTER_MATMUL(double);
MINITF_REGISTER_MATMUL(int32_t);
MINITF_REGISTER_MATMUL(int64_t);
#undef MINITF_REGISTER_MATMUL
REGISTER_KERNEL_BUILDER(Name("_FusedMatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        FusedMatMulOp<CpuMatMul<float>>);
REGISTER_KERNEL_BUILDER(Name("_FusedMatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                        FusedMatMulOp<CpuMatMul<double>>);

#ifdef MINITF_WITH_CUDA
struct CudaMatMul {
  static absl::Status SetZero(OpKernelContext* ctx, Tensor* product) {
    return ZeroOnComputeStream(ctx, product);
  }

  static absl::Status Multiply(OpKernelContext* ctx, const MatMulPlan& plan, const Tensor& a,
                               const Tensor& b, Tensor* product) {
    return BlasOnComputeStream(ctx, [&](se::Stream* stream, se::BlasSupport* blas) {
      se::DeviceMemory<float> c = AsDeviceMemory(*product);
      return blas->DoBlasGemm(stream, BlasTranspose(plan.transpose_b),
                              BlasTranspose(plan.transpose_a), plan.n, plan.m, plan.k, 1.0f,
                              AsDeviceMemory(b), static_cast<int>(b.dim_size(1)),
                              AsDeviceMemory(a), static_cast<int>(a.dim_size(1)), 0.0f, &c,
                              static_cast<int>(plan.n));
    });
  }

  // cuBLASLt's epilogues for no activation and for the tanh GELU (as
  // TensorFlow's and PyTorch's CUDA MatMul + BiasAdd). Relu stays with the
  // bias-and-activation kernel, which keeps a NaN as the CPU's Relu does.
  // False where cuBLASLt has no algorithm for the shape.
  static absl::StatusOr<bool> MultiplyWithEpilogue(OpKernelContext* ctx, const MatMulPlan& plan,
                                                   const Tensor& a, const Tensor& b,
                                                   FusedActivation activation,
                                                   const Tensor& bias, Tensor* product) {
    se::blas::Epilogue epilogue;
    if (activation == FusedActivation::kNone) {
      epilogue = se::blas::Epilogue::kBias;
    } else if (activation == FusedActivation::kGeluApproximate) {
      epilogue = se::blas::Epilogue::kBiasGeluApproximate;
    } else {
      return false;
    }
    bool done = false;
    MINITF_RETURN_IF_ERROR(
        BlasOnComputeStream(ctx, [&](se::Stream* stream, se::BlasSupport* blas) {
          se::DeviceMemory<float> c = AsDeviceMemory(*product);
          return UnlessDeclined(
              blas->DoBlasGemmWithEpilogue(
                  stream, BlasTranspose(plan.transpose_b), BlasTranspose(plan.transpose_a), plan.n,
                  plan.m, plan.k, AsDeviceMemory(b), static_cast<int>(b.dim_size(1)),
                  AsDeviceMemory(a), static_cast<int>(a.dim_size(1)), &c,
                  static_cast<int>(plan.n), epilogue, AsDeviceMemory(bias)),
              &done);
        }));
    return done;
  }

  static absl::Status AddBiasAndActivate(OpKernelContext* ctx, FusedActivation activation,
                                         const Tensor& bias, Tensor* product) {
    return AddBiasAndActivateOnComputeStream(ctx, activation, bias, product);
  }
};

REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    MatMulOp<CudaMatMul>);
REGISTER_KERNEL_BUILDER(
    Name("_FusedMatMul").Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("T"),
    FusedMatMulOp<CudaMatMul>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
