// Kernel: MatMul on CPU, as an Eigen tensor contraction on the intra-op pool.
// The operands are checked by MatMulOpBase, as on every device.
#include "ops/kernels/matmul_op_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// product = op(a) * op(b), op transposing when transpose_a / transpose_b say.
template <typename T>
class MatMulOp : public MatMulOpBase {
 public:
  using MatMulOpBase::MatMulOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    absl::StatusOr<MatMulPlan> plan = Plan(a, b);
    OP_REQUIRES_OK(ctx, plan.status());
    Tensor* product = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({plan->m, plan->n}), &product));
    if (product->NumElements() == 0) return;
    auto out = product->matrix<T>();
    if (plan->k == 0) {
      out.device(ctx->eigen_cpu_device()) = out.constant(T(0));
      return;
    }
    const Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> contract_dims = {
        Eigen::IndexPair<Eigen::DenseIndex>(plan->a_inner, plan->b_inner)};
    out.device(ctx->eigen_cpu_device()) = a.matrix<T>().contract(b.matrix<T>(), contract_dims);
  }
};

#define MINITF_REGISTER_MATMUL(T) \
  REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatMulOp<T>)
MINITF_REGISTER_MATMUL(float);
MINITF_REGISTER_MATMUL(double);
MINITF_REGISTER_MATMUL(int32_t);
MINITF_REGISTER_MATMUL(int64_t);
#undef MINITF_REGISTER_MATMUL

}  // namespace
}  // namespace minitf
