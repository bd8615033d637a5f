// MatMulOpBase: what every device's MatMul kernel shares, TensorFlow's
// MatMulOp<Device, T> before it calls its functor: transpose_a and
// transpose_b read once when the kernel is built, and the checks of the
// operands that give the product's sizes. Subclasses multiply.
//
//   absl::StatusOr<MatMulPlan> plan = Plan(ctx->input(0), ctx->input(1));
//   OP_REQUIRES_OK(ctx, plan.status());
//   allocate TensorShape({plan->m, plan->n}), then op(a) [m, k] * op(b) [k, n].
#ifndef MINITF_OPS_KERNELS_MATMUL_OP_COMMON_H_
#define MINITF_OPS_KERNELS_MATMUL_OP_COMMON_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf {

// op(a) is a or its transpose as transpose_a says, likewise op(b).
struct MatMulPlan {
  int a_inner = 1;  // The dimension of a that is contracted.
  int b_inner = 0;  // The dimension of b that is contracted.
  int64_t m = 0, n = 0, k = 0;  // op(a) is [m, k], op(b) is [k, n].
};

class MatMulOpBase : public OpKernel {
 public:
  // Reads transpose_a and transpose_b.
  explicit MatMulOpBase(OpKernelConstruction* ctx);

 protected:
  // InvalidArgument naming the node when a or b is not a matrix or their
  // inner dimensions differ ("Matrix size-incompatible: In[0]: ...").
  absl::StatusOr<MatMulPlan> Plan(const Tensor& a, const Tensor& b) const;

  // Constant after construction.
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_MATMUL_OP_COMMON_H_
