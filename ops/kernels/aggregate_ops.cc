// Kernel: AddN, the elementwise sum of N tensors of one shape. The output
// reuses input 0's buffer when nothing else holds it.
#include "ops/kernels/aggregate_ops_common.h"

#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {

absl::Status ValidateAddNInputs(OpKernelContext* ctx, const OpKernel& op) {
  const Tensor& first = ctx->input(0);
  for (int i = 1; i < ctx->num_inputs(); ++i) {
    if (ctx->input(i).shape() == first.shape()) continue;
    return AttachNodeName(
        absl::InvalidArgumentError(absl::StrCat(
            "Inputs to operation AddN must have the same size and shape.  Input 0: ",
            first.shape().DebugString(), " != input ", i, ": ",
            ctx->input(i).shape().DebugString())),
        op.def());
  }
  return absl::OkStatus();
}

namespace {

template <typename T>
class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, ValidateAddNInputs(ctx, *this));
    const Tensor& first = ctx->input(0);
    Tensor* sum = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, first.shape(), &sum));
    auto out = sum->flat<T>();
    const Eigen::ThreadPoolDevice& device = ctx->eigen_cpu_device();
    if (ctx->num_inputs() == 1) {
      out.device(device) = first.flat<T>();
      return;
    }
    out.device(device) = first.flat<T>() + ctx->input(1).flat<T>();
    for (int i = 2; i < ctx->num_inputs(); ++i) {
      out.device(device) = out + ctx->input(i).flat<T>();
    }
  }
};

#define MINITF_REGISTER_ADDN_(T) \
  REGISTER_KERNEL_BUILDER(Name("AddN").Device(DEVICE_CPU).TypeConstraint<T>("T"), AddNOp<T>)
MINITF_REGISTER_ADDN_(float);
MINITF_REGISTER_ADDN_(double);
MINITF_REGISTER_ADDN_(int32_t);
MINITF_REGISTER_ADDN_(int64_t);
#undef MINITF_REGISTER_ADDN_

}  // namespace
}  // namespace minitf
