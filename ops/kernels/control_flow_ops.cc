// Kernels: Switch and Merge on CPU, and on SimGPU for the control loops of
// loops spanning devices. Enter, Exit, NextIteration and LoopCond forward
// their input with Identity's kernel (identity_op.cc): the frame
// bookkeeping of a loop is the executor's.
#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {

// Sets only the output `pred` selects; the executor marks the other dead.
class SwitchOp : public OpKernel {
 public:
  explicit SwitchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    OP_REQUIRES(ctx, pred.dims() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "Switch '", name(), "': pred must be a scalar, got shape ",
                    pred.shape().DebugString())));
    const int port = pred.scalar<bool>()() ? 1 : 0;
    if (ctx->input_is_ref(0)) {
      MutexLock lock(ctx->input_ref_mutex(0));
      ctx->set_output(port, *ctx->mutable_input(0));
      return;
    }
    ctx->set_output(port, ctx->input(0));
  }
  bool IsExpensive() override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("Switch").Device(DEVICE_CPU), SwitchOp);

// Forwards the first input that has a value, and its index.
class MergeOp : public OpKernel {
 public:
  explicit MergeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (!ctx->has_input(i)) continue;
      ctx->set_output(0, ctx->input(i));
      Tensor* index = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &index));
      index->scalar<int32_t>()() = i;
      return;
    }
    ctx->CtxFailure(absl::InternalError(
        absl::StrCat("Merge '", name(), "' ran with no live input")));
  }
  bool IsExpensive() override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("Merge").Device(DEVICE_CPU), MergeOp);

// On every GPU platform, for the control loops a while loop spanning devices
// gets (session/control_loops.h): they forward a tensor without touching it;
// the predicate and Merge's value_index are in host memory, where the
// kernels read and write them. The placer puts user control flow on the CPU
// unless it asks for a GPU.
REGISTER_KERNEL_BUILDER(Name("Switch").Device(DEVICE_GPU).HostMemory("pred"), SwitchOp);
REGISTER_KERNEL_BUILDER(Name("Merge").Device(DEVICE_GPU).HostMemory("value_index"), MergeOp);
// Enter, Exit and NextIteration are Identity's kernel (identity_op.cc).

}  // namespace minitf
