// Kernels: BiasAdd and BiasAddGrad on CPU. BiasAdd broadcasts the bias
// vector over every position of `value` but its last dimension; BiasAddGrad
// sums out_backprop over every dimension but the channel one.
#include <string>

#include "ops/kernels/bias_add_op_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, CheckBiasAddDataFormat(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    absl::StatusOr<int64_t> bias_channels = BiasAddChannels(value, bias, *this);
    OP_REQUIRES_OK(ctx, bias_channels.status());
    const int64_t channels = *bias_channels;
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

template <typename T>
class BiasAddGradOp : public BiasAddGradOpBase {
 public:
  using BiasAddGradOpBase::BiasAddGradOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& out_backprop = ctx->input(0);
    absl::StatusOr<BiasGradView> view = ViewOf(ctx);
    OP_REQUIRES_OK(ctx, view.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({view->channels}), &output));
    if (view->channels == 0) return;
    auto out = output->vec<T>();
    if (out_backprop.NumElements() == 0) {
      out.setZero();
      return;
    }
    const auto in = out_backprop.shaped<T, 3>({view->outer, view->channels, view->inner});
    const Eigen::array<Eigen::DenseIndex, 2> outer_and_inner = {0, 2};
    out.device(ctx->eigen_cpu_device()) = in.sum(outer_and_inner);
  }
};

#define MINITF_REGISTER_BIAS_ADD(T)                                                      \
  REGISTER_KERNEL_BUILDER(Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
                          BiasAddOp<T>);                                                 \
  REGISTER_KERNEL_BUILDER(Name("BiasAddGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BiasAddGradOp<T>)
MINITF_REGISTER_BIAS_ADD(float);
MINITF_REGISTER_BIAS_ADD(double);
MINITF_REGISTER_BIAS_ADD(int32_t);
MINITF_REGISTER_BIAS_ADD(int64_t);
#undef MINITF_REGISTER_BIAS_ADD

}  // namespace
}  // namespace minitf
