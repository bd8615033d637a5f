// Kernels: Const and Placeholder on CPU.
#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {

// Outputs the tensor in its "value" attr, sharing its buffer every step.
class ConstantOp : public OpKernel {
 public:
  explicit ConstantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &value_));
    OP_REQUIRES(ctx, value_.dtype() == ctx->output_types()[0],
                absl::InvalidArgumentError(absl::StrCat(
                    "value has type ", DataTypeString(value_.dtype()), ", dtype attr is ",
                    DataTypeString(ctx->output_types()[0]))));
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }
  bool IsExpensive() override { return false; }

 private:
  Tensor value_;
};
REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_CPU), ConstantOp);

// Only reached when the placeholder was not fed.
class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->CtxFailure(absl::InvalidArgumentError(
        absl::StrCat("You must feed a value for placeholder tensor '", name(),
                     "' with dtype ", DataTypeString(output_type(0)))));
  }
  bool IsExpensive() override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("Placeholder").Device(DEVICE_CPU), PlaceholderOp);
// An unfed Placeholder only reports its error, on any device.
REGISTER_KERNEL_BUILDER(Name("Placeholder").Device(DEVICE_GPU), PlaceholderOp);

}  // namespace minitf
