// Kernels: Const and Placeholder, on CPU and GPU.
#include <utility>

#include "absl/strings/str_cat.h"
#include "platform/mutex.h"
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

// On a GPU the value is copied into device memory once, when the kernel is
// built (through the device's DeviceContext, as any host-to-device copy),
// and shared every step. A value in host memory (int32: memory_types.h)
// stays where the attr holds it.
class GpuConstantOp : public OpKernel {
 public:
  explicit GpuConstantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Tensor host;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &host));
    OP_REQUIRES(ctx, host.dtype() == ctx->output_types()[0],
                absl::InvalidArgumentError(absl::StrCat(
                    "value has type ", DataTypeString(host.dtype()), ", dtype attr is ",
                    DataTypeString(ctx->output_types()[0]))));
    if (ctx->output_memory_types()[0] == HOST_MEMORY || host.NumElements() == 0) {
      value_ = host;
      return;
    }
    DeviceContext* copier = ctx->device()->device_context();
    OP_REQUIRES(ctx, copier != nullptr,
                absl::InternalError(absl::StrCat("device ", ctx->device()->name(),
                                                 " has no DeviceContext to copy the value")));
    absl::StatusOr<Tensor> on_device =
        Tensor::Allocate(ctx->allocator(), host.dtype(), host.shape());
    OP_REQUIRES_OK(ctx, on_device.status());
    Notification copied;
    absl::Status status;
    copier->CopyCPUTensorToDevice(&host, ctx->device(), &*on_device,
                                  [&](const absl::Status& s) {
                                    status = s;
                                    copied.Notify();
                                  });
    copied.WaitForNotification();
    OP_REQUIRES_OK(ctx, status);
    value_ = *std::move(on_device);
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }
  bool IsExpensive() override { return false; }

 private:
  Tensor value_;
};
REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_GPU), GpuConstantOp);

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
