// Kernels: float ref variables on CUDA GPUs and their updates: Variable and
// VariableV2 (variable_ops_common.h's VariableOp), Assign (a device-to-device
// copy on the compute stream), AssignAdd and AssignSub (flat element-wise
// Add and Sub, cwise_ops_gpu.h), ApplyMomentum and ApplyAdam (ApplyRefOp,
// training_ops_common.h, with training_ops.cu's arithmetic). Checks, errors
// and locking are the CPU kernels'. With these, a variable and its updates
// stay on the GPU (reference edges keep them on one device).
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/cwise_ops_gpu.h"
#include "ops/kernels/cuda/training_ops_gpu.h"
#include "ops/kernels/training_ops_common.h"
#include "ops/kernels/variable_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

class AssignOp : public AssignOpBase {
 public:
  using AssignOpBase::AssignOpBase;

 protected:
  void Copy(OpKernelContext* ctx, const Tensor& from, Tensor* to) override {
    if (from.TotalBytes() == 0) return;
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    OP_REQUIRES_OK(ctx, LaunchStatus(cudaMemcpyAsync(to->data<float>(), from.data<float>(),
                                                     from.TotalBytes(), cudaMemcpyDeviceToDevice,
                                                     CudaStreamOf(*stream)),
                                     "cudaMemcpyAsync", *this));
  }
};

// ref += value (kAdd) or ref -= value (kSub).
template <gpu::BinaryOpKind kKind>
class AssignUpdateOp : public InPlaceUpdateOp {
 public:
  using InPlaceUpdateOp::InPlaceUpdateOp;

 protected:
  void Update(OpKernelContext* ctx, Tensor* var) override {
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, value.shape() == var->shape(), ShapeMismatch("value", *var, value));
    if (var->NumElements() == 0) return;
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    const gpu::BroadcastLayout flat = gpu::FlatLayout(var->NumElements());
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchBinaryOp(CudaStreamOf(*stream), kKind, flat,
                                                         var->data<float>(), value.data<float>(),
                                                         var->data<float>()),
                                     type_string(), *this));
  }
};

const float* InputData(OpKernelContext* ctx, int index) { return ctx->input(index).data<float>(); }

struct CudaMomentum : MomentumSignature {
  static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool use_nesterov) {
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchApplyMomentum(
                                         CudaStreamOf(*stream), vars[0]->NumElements(),
                                         vars[0]->data<float>(), vars[1]->data<float>(),
                                         InputData(ctx, 2), InputData(ctx, 3), InputData(ctx, 4),
                                         use_nesterov),
                                     "ApplyMomentum", ctx->op_kernel()));
  }
};

struct CudaAdam : AdamSignature {
  static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool use_nesterov) {
    absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
    OP_REQUIRES_OK(ctx, stream.status());
    const se::cuda::ScopedKernelTiming timing(*stream);
    const gpu::AdamScalars scalars{InputData(ctx, 3), InputData(ctx, 4), InputData(ctx, 5),
                                   InputData(ctx, 6), InputData(ctx, 7), InputData(ctx, 8)};
    OP_REQUIRES_OK(ctx, LaunchStatus(gpu::LaunchApplyAdam(CudaStreamOf(*stream),
                                                          vars[0]->NumElements(),
                                                          vars[0]->data<float>(),
                                                          vars[1]->data<float>(),
                                                          vars[2]->data<float>(), scalars,
                                                          InputData(ctx, 9), use_nesterov),
                                     "ApplyAdam", ctx->op_kernel()));
  }
};

#define MINITF_REGISTER_CUDA_FLOAT_(op, attr, ...)                                              \
  REGISTER_KERNEL_BUILDER(                                                                      \
      Name(op).Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>(attr), __VA_ARGS__)

MINITF_REGISTER_CUDA_FLOAT_("Variable", "dtype", VariableOp);
MINITF_REGISTER_CUDA_FLOAT_("VariableV2", "dtype", VariableOp);
MINITF_REGISTER_CUDA_FLOAT_("Assign", "T", AssignOp);
MINITF_REGISTER_CUDA_FLOAT_("AssignAdd", "T", AssignUpdateOp<gpu::BinaryOpKind::kAdd>);
MINITF_REGISTER_CUDA_FLOAT_("AssignSub", "T", AssignUpdateOp<gpu::BinaryOpKind::kSub>);
MINITF_REGISTER_CUDA_FLOAT_("ApplyMomentum", "T", ApplyRefOp<CudaMomentum>);
MINITF_REGISTER_CUDA_FLOAT_("ApplyAdam", "T", ApplyRefOp<CudaAdam>);

#undef MINITF_REGISTER_CUDA_FLOAT_

}  // namespace
}  // namespace minitf
