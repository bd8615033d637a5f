#include "ops/kernels/matmul_op_common.h"

#include "absl/strings/str_cat.h"
#include "runtime/node_def_util.h"
#include "runtime/op_requires.h"

namespace minitf {

MatMulOpBase::MatMulOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
  OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
}

absl::StatusOr<MatMulPlan> MatMulOpBase::Plan(const Tensor& a, const Tensor& b) const {
  if (a.dims() != 2 || b.dims() != 2) {
    return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                              "both inputs must be matrices, got shapes ",
                              a.shape().DebugString(), " and ", b.shape().DebugString())),
                          def());
  }
  MatMulPlan plan;
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

}  // namespace minitf
