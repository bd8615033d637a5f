// Kernel: BiasAdd on CPU. The bias vector is broadcast over every position
// of `value` but its last dimension.
#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES(ctx, value.dims() >= 2,
                AttachNodeName(absl::InvalidArgumentError(
                                   absl::StrCat("value must have rank at least 2, got shape ",
                                                value.shape().DebugString())),
                               def()));
    const int64_t channels = value.dim_size(value.dims() - 1);
    OP_REQUIRES(ctx, bias.dims() == 1 && bias.dim_size(0) == channels,
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "bias must be a vector of the last dimension of value: "
                                   "value has shape ",
                                   value.shape().DebugString(), ", bias has shape ",
                                   bias.shape().DebugString())),
                               def()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, value.shape(), &output));
    if (value.NumElements() == 0) return;
    // View value as [rows, channels] and bias as one row repeated `rows` times.
    const int64_t rows = value.NumElements() / channels;
    const Eigen::DSizes<Eigen::DenseIndex, 2> one_row(1, channels);
    const Eigen::DSizes<Eigen::DenseIndex, 2> repeat_rows(rows, 1);
    output->shaped<T, 2>({rows, channels}).device(ctx->eigen_cpu_device()) =
        value.shaped<T, 2>({rows, channels}) +
        bias.vec<T>().reshape(one_row).broadcast(repeat_rows);
  }
};

#define MINITF_REGISTER_BIAS_ADD(T) \
  REGISTER_KERNEL_BUILDER(Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"), BiasAddOp<T>)
MINITF_REGISTER_BIAS_ADD(float);
MINITF_REGISTER_BIAS_ADD(double);
MINITF_REGISTER_BIAS_ADD(int32_t);
MINITF_REGISTER_BIAS_ADD(int64_t);
#undef MINITF_REGISTER_BIAS_ADD

}  // namespace
}  // namespace minitf
