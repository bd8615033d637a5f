// Kernel: MatMul on CPU, as an Eigen tensor contraction on the intra-op pool.
#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

// product = op(a) * op(b), op transposing when transpose_a / transpose_b say.
template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2 && b.dims() == 2,
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "both inputs must be matrices, got shapes ",
                                   a.shape().DebugString(), " and ", b.shape().DebugString())),
                               def()));
    // The contracted dimension of each operand.
    const int a_inner = transpose_a_ ? 0 : 1;
    const int b_inner = transpose_b_ ? 1 : 0;
    OP_REQUIRES(ctx, a.dim_size(a_inner) == b.dim_size(b_inner),
                AttachNodeName(
                    absl::InvalidArgumentError(absl::StrCat(
                        "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                        ", In[1]: ", b.shape().DebugString(), transpose_a_ ? " (transpose_a)" : "",
                        transpose_b_ ? " (transpose_b)" : "")),
                    def()));
    const TensorShape out_shape({a.dim_size(1 - a_inner), b.dim_size(1 - b_inner)});
    Tensor* product = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &product));
    if (product->NumElements() == 0) return;
    auto out = product->matrix<T>();
    if (a.dim_size(a_inner) == 0) {
      out.device(ctx->eigen_cpu_device()) = out.constant(T(0));
      return;
    }
    const Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> contract_dims = {
        Eigen::IndexPair<Eigen::DenseIndex>(a_inner, b_inner)};
    out.device(ctx->eigen_cpu_device()) = a.matrix<T>().contract(b.matrix<T>(), contract_dims);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
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
