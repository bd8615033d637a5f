#include "tests/testlib/test_ops.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_registry.h"
#include "runtime/op_requires.h"
#include "runtime/shape_inference.h"

namespace minitf::test {

namespace {
std::atomic<int64_t> g_count_runs{0};
}  // namespace

int64_t TestCountRunsValue() { return g_count_runs.load(); }

REGISTER_OP("_TestFail")
    .SetIsStateful()  // What it does to a step is the point: never folded away.
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("message: string = 'failure requested by the test'")
    .SetShapeFn(shape_fns::UnchangedShape);

class TestFailOp : public OpKernel {
 public:
  explicit TestFailOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->CtxFailure(absl::AbortedError(message_));
  }

 private:
  std::string message_;
};
REGISTER_KERNEL_BUILDER(Name("_TestFail").Device(DEVICE_CPU), TestFailOp);

REGISTER_OP("_TestAsyncIdentity")
    .SetIsStateful()  // What it does to a step is the point: never folded away.
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("delay_ms: int = 0")
    .SetShapeFn(shape_fns::UnchangedShape);

class TestAsyncIdentityOp : public AsyncOpKernel {
 public:
  explicit TestAsyncIdentityOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("delay_ms", &delay_ms_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    const int64_t delay = delay_ms_;
    auto work = [ctx, done = std::move(done), delay] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay));
      ctx->set_output(0, ctx->input(0));
      done();
    };
    // Completes on a thread of the step's runner (a thread the session owns
    // and joins), or inline when there is none.
    if (ctx->runner() != nullptr) {
      (*ctx->runner())(std::move(work));
    } else {
      work();
    }
  }

 private:
  int64_t delay_ms_ = 0;
};
REGISTER_KERNEL_BUILDER(Name("_TestAsyncIdentity").Device(DEVICE_CPU), TestAsyncIdentityOp);

REGISTER_OP("_TestBlockUntilCancelled")
    .SetIsStateful()  // What it does to a step is the point: never folded away.
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape);

class TestBlockUntilCancelledOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    CancellationManager* cm = ctx->cancellation_manager();
    OP_REQUIRES_ASYNC(ctx, cm != nullptr,
                      absl::InternalError("no cancellation manager"), done);
    const CancellationToken token = cm->get_cancellation_token();
    auto finish = [ctx, done] {
      ctx->CtxFailure(absl::CancelledError("blocked op was cancelled"));
      done();
    };
    if (!cm->RegisterCallback(token, finish)) finish();
  }
};
REGISTER_KERNEL_BUILDER(Name("_TestBlockUntilCancelled").Device(DEVICE_CPU),
                        TestBlockUntilCancelledOp);

REGISTER_OP("_TestSpinUntilCancelled")
    .SetIsStateful()  // What it does to a step is the point: never folded away.
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape);

// A synchronous, expensive kernel that holds its thread until the step is
// cancelled, as a long kernel does; it gives up after 10 s, passing its
// input on, so a step nobody cancels ends (and its test fails) rather than
// hangs.
class TestSpinUntilCancelledOp : public OpKernel {
 public:
  explicit TestSpinUntilCancelledOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    CancellationManager* cm = ctx->cancellation_manager();
    OP_REQUIRES(ctx, cm != nullptr, absl::InternalError("no cancellation manager"));
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!cm->IsCancelled() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    OP_REQUIRES(ctx, !cm->IsCancelled(), absl::CancelledError("spinning op was cancelled"));
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() override { return true; }
};
REGISTER_KERNEL_BUILDER(Name("_TestSpinUntilCancelled").Device(DEVICE_CPU),
                        TestSpinUntilCancelledOp);

REGISTER_OP("_TestIncrement").Input("x: int32").Output("y: int32")
    .SetShapeFn(shape_fns::UnchangedShape);
REGISTER_OP("_TestExpensiveIncrement").Input("x: int32").Output("y: int32")
    .SetShapeFn(shape_fns::UnchangedShape);

template <bool kExpensive>
class TestIncrementOp : public OpKernel {
 public:
  explicit TestIncrementOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &out));
    out->flat<int32_t>() = ctx->input(0).flat<int32_t>() + 1;
  }
  bool IsExpensive() override { return kExpensive; }
};
REGISTER_KERNEL_BUILDER(Name("_TestIncrement").Device(DEVICE_CPU), TestIncrementOp<false>);
REGISTER_KERNEL_BUILDER(Name("_TestExpensiveIncrement").Device(DEVICE_CPU),
                        TestIncrementOp<true>);

REGISTER_OP("_TestCountRuns").Output("count: int32").SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape);

class TestCountRunsOp : public OpKernel {
 public:
  explicit TestCountRunsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<int32_t>()() = static_cast<int32_t>(g_count_runs.fetch_add(1) + 1);
  }
};
REGISTER_KERNEL_BUILDER(Name("_TestCountRuns").Device(DEVICE_CPU), TestCountRunsOp);

}  // namespace minitf::test
