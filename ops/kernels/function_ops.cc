// Kernels: _Arg and _Retval, reading feeds from and writing fetches to the
// step's call frame.
#include "absl/strings/str_cat.h"
#include "runtime/call_frame.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {

class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("index", &index_));
  }
  void Compute(OpKernelContext* ctx) override {
    CallFrameInterface* frame = ctx->call_frame();
    OP_REQUIRES(ctx, frame != nullptr,
                absl::InternalError(absl::StrCat("_Arg '", name(), "' runs without a call frame")));
    Tensor value;
    OP_REQUIRES_OK(ctx, frame->GetArg(index_, &value));
    OP_REQUIRES(ctx, value.dtype() == output_type(0),
                absl::InvalidArgumentError(absl::StrCat(
                    "feed for '", name(), "' has type ", DataTypeString(value.dtype()),
                    ", expected ", DataTypeString(output_type(0)))));
    ctx->set_output(0, value);
  }
  bool IsExpensive() override { return false; }

 private:
  int64_t index_ = 0;
};
REGISTER_KERNEL_BUILDER(Name("_Arg").Device(DEVICE_CPU), ArgOp);

class RetvalOp : public OpKernel {
 public:
  explicit RetvalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("index", &index_));
  }
  void Compute(OpKernelContext* ctx) override {
    CallFrameInterface* frame = ctx->call_frame();
    OP_REQUIRES(ctx, frame != nullptr,
                absl::InternalError(absl::StrCat("_Retval '", name(), "' runs without a call frame")));
    if (ctx->input_is_ref(0)) {
      MutexLock lock(ctx->input_ref_mutex(0));
      OP_REQUIRES_OK(ctx, frame->SetRetval(index_, *ctx->mutable_input(0)));
      return;
    }
    OP_REQUIRES_OK(ctx, frame->SetRetval(index_, ctx->input(0)));
  }
  bool IsExpensive() override { return false; }

 private:
  int64_t index_ = 0;
};
REGISTER_KERNEL_BUILDER(Name("_Retval").Device(DEVICE_CPU), RetvalOp);

}  // namespace minitf
