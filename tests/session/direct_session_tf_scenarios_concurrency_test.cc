// The threaded scenarios of TensorFlow's direct_session_test.cc, written for
// minitf: concurrent Runs and callables of one session, and Close from
// another thread while steps run (run under ThreadSanitizer by `make check`).
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_registry.h"
#include "runtime/op_requires.h"
#include "runtime/shape_inference.h"
#include "session/direct_session.h"

namespace minitf {
namespace {

// Steps that have reached a _TestStartThenWait kernel.
std::atomic<int> g_started{0};

// _TestStartThenWait(x) -> x: counts itself in g_started, then holds the
// step until it is cancelled and fails with Cancelled. `async` picks an
// AsyncOpKernel that waits on a cancellation callback, else a synchronous
// kernel that holds its thread, polling (it gives up after 10 s, so a test
// whose step nobody cancels fails instead of hanging).
REGISTER_OP("_TestStartThenWait")
    .Input("x: int32")
    .Output("y: int32")
    .Attr("async: bool = false")
    .SetShapeFn(shape_fns::UnchangedShape);

class TestStartThenWaitOp : public AsyncOpKernel {
 public:
  explicit TestStartThenWaitOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("async", &async_));
  }
  bool IsExpensive() override { return true; }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    CancellationManager* cm = ctx->cancellation_manager();
    OP_REQUIRES_ASYNC(ctx, cm != nullptr, absl::InternalError("no cancellation manager"), done);
    if (async_) {
      auto finish = [ctx, done] {
        ctx->CtxFailure(absl::CancelledError("waiting op was cancelled"));
        done();
      };
      const bool registered = cm->RegisterCallback(cm->get_cancellation_token(), finish);
      g_started.fetch_add(1);
      if (!registered) finish();
      return;
    }
    g_started.fetch_add(1);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!cm->IsCancelled() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (cm->IsCancelled()) ctx->CtxFailure(absl::CancelledError("waiting op was cancelled"));
    ctx->set_output(0, ctx->input(0));
    done();
  }

 private:
  bool async_ = false;
};
REGISTER_KERNEL_BUILDER(Name("_TestStartThenWait").Device(DEVICE_CPU), TestStartThenWaitOp);

SessionOptions CpuOnly(int num_cpus) {
  SessionOptions options;
  options.config.device_count["CPU"] = num_cpus;
  options.config.device_count["GPU"] = 0;
  options.config.intra_op_parallelism_threads = 1;
  options.config.inter_op_parallelism_threads = 2;
  return options;
}

std::unique_ptr<DirectSession> MakeSession(const SessionOptions& options) {
  auto session = DirectSession::New(options);
  EXPECT_TRUE(session.ok()) << session.status();
  return *std::move(session);
}

GraphDef ToGraphDef(const Scope& root) {
  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);
  EXPECT_TRUE(s.ok()) << s;
  return def;
}

// c = 1; wait = _TestStartThenWait(c) on `device`; after = wait + 1;
// inc = c + 1.
GraphDef WaitingGraph(bool async, const std::string& device = "") {
  Scope root = Scope::NewRootScope();
  Output c = ops::Const(root.WithOpName("c"), Tensor::Scalar<int32_t>(1));
  Output wait = OpBuilder(root.WithOpName("wait").WithDevice(device), "_TestStartThenWait")
                    .Input(c)
                    .Attr("async", async)
                    .Finalize1();
  OpBuilder(root.WithOpName("after"), "_TestIncrement").Input(wait).Finalize1();
  OpBuilder(root.WithOpName("inc"), "_TestIncrement").Input(c).Finalize1();
  return ToGraphDef(root);
}

void AwaitStarted(int count) {
  while (g_started.load() < count) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// y = A x across two CPU devices (TensorFlow's MinusAX graph, fetched 1000
// times from 4 threads).
GraphDef MatMulOnTwoDevices() {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a").WithDevice("/device:CPU:0"),
                        Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  Output x = ops::Const(root.WithOpName("x").WithDevice("/device:CPU:1"),
                        Tensor::FromVector<float>({1, 1}, TensorShape({2, 1})));
  ops::MatMul(root.WithOpName("y").WithDevice("/device:CPU:0"), a, x);
  return ToGraphDef(root);
}

TEST(DirectSessionTfScenariosConcurrencyTest, RunsAndCallablesFromManyThreads) {
  auto session = MakeSession(CpuOnly(2));
  ASSERT_TRUE(session->Create(MatMulOnTwoDevices()).ok());
  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.fetch = {"y:0"}}, &handle).ok());
  constexpr int kThreads = 4;
  constexpr int kCalls = 250;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        std::vector<Tensor> out;
        const absl::Status s = (t + i) % 2 == 0
                                   ? session->Run({}, {"y:0"}, {}, &out)
                                   : session->RunCallable(handle, {}, &out, nullptr);
        if (!s.ok() || out.size() != 1 || out[0].flat<float>()(0) != 3 ||
            out[0].flat<float>()(1) != 7) {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  EXPECT_EQ(session->NumCachedExecutors(), 1);
}

// Close from another thread cancels a step blocked in a kernel, whether
// the kernel holds its thread or waits asynchronously, and whether the step
// has one partition or two; the Run returns CANCELLED.
TEST(DirectSessionTfScenariosConcurrencyTest, CloseCancelsARunningStep) {
  struct Case {
    bool async;
    int num_cpus;
    std::string device;
  };
  for (const Case& c : {Case{false, 1, ""}, Case{true, 1, ""},
                        Case{false, 2, "/device:CPU:1"}, Case{true, 2, "/device:CPU:1"}}) {
    SCOPED_TRACE(::testing::Message() << "async " << c.async << ", cpus " << c.num_cpus);
    auto session = MakeSession(CpuOnly(c.num_cpus));
    ASSERT_TRUE(session->Create(WaitingGraph(c.async, c.device)).ok());
    const int started = g_started.load();
    absl::Status run_status;
    std::thread runner([&] {
      std::vector<Tensor> out;
      run_status = session->Run({}, {"after"}, {}, &out);
    });
    AwaitStarted(started + 1);
    ASSERT_TRUE(session->Close().ok());
    runner.join();
    EXPECT_EQ(run_status.code(), absl::StatusCode::kCancelled) << run_status;
    EXPECT_EQ(session->NumCachedExecutors(), 0);
    std::vector<Tensor> out;
    EXPECT_EQ(session->Run({}, {"inc"}, {}, &out).code(), absl::StatusCode::kCancelled);
  }
}

// Runs that race with Close either finish or return CANCELLED; once one
// has returned CANCELLED, every later call does too.
TEST(DirectSessionTfScenariosConcurrencyTest, CloseWhileManyThreadsRun) {
  auto session = MakeSession(CpuOnly(2));
  ASSERT_TRUE(session->Create(MatMulOnTwoDevices()).ok());
  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.fetch = {"y"}}, &handle).ok());
  constexpr int kThreads = 4;
  std::atomic<int> completed{0};
  std::vector<int> unexpected(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      bool cancelled = false;
      for (int i = 0; i < 100000 && !cancelled; ++i) {
        std::vector<Tensor> out;
        const absl::Status s = i % 2 == 0 ? session->Run({}, {"y"}, {}, &out)
                                          : session->RunCallable(handle, {}, &out, nullptr);
        if (s.code() == absl::StatusCode::kCancelled) {
          cancelled = true;
        } else if (!s.ok()) {
          ++unexpected[t];
        } else {
          completed.fetch_add(1);
        }
      }
      // After Close, every call is refused.
      std::vector<Tensor> out;
      if (session->Run({}, {"y"}, {}, &out).code() != absl::StatusCode::kCancelled) {
        ++unexpected[t];
      }
    });
  }
  while (completed.load() < 20) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(session->Close().ok());
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(unexpected[t], 0) << "thread " << t;
  EXPECT_EQ(session->NumCachedExecutors(), 0);
}

// Releasing a callable does not wait for its running call, which keeps its
// binding; the call then ends with the step (here cancelled by Close).
TEST(DirectSessionTfScenariosConcurrencyTest, ReleaseWhileTheCallableRuns) {
  auto session = MakeSession(CpuOnly(1));
  ASSERT_TRUE(session->Create(WaitingGraph(/*async=*/true)).ok());
  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.fetch = {"after"}}, &handle).ok());
  const int started = g_started.load();
  absl::Status call_status;
  std::thread caller([&] {
    std::vector<Tensor> out;
    call_status = session->RunCallable(handle, {}, &out, nullptr);
  });
  AwaitStarted(started + 1);
  ASSERT_TRUE(session->ReleaseCallable(handle).ok());
  std::vector<Tensor> out;
  EXPECT_EQ(session->RunCallable(handle, {}, &out, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(session->Run({}, {"inc"}, {}, &out).ok());  // Other steps still run.
  ASSERT_TRUE(session->Close().ok());
  caller.join();
  EXPECT_EQ(call_status.code(), absl::StatusCode::kCancelled) << call_status;
}

// Callables made from several threads at once get distinct handles, each
// bound to its own signature.
TEST(DirectSessionTfScenariosConcurrencyTest, CallablesMadeConcurrently) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  Output y = OpBuilder(root.WithOpName("y"), "_TestIncrement").Input(x).Finalize1();
  OpBuilder(root.WithOpName("z"), "_TestIncrement").Input(y).Finalize1();
  auto session = MakeSession(CpuOnly(1));
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  constexpr int kThreads = 4;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string fetch = t % 2 == 0 ? "y" : "z";
      const int32_t added = t % 2 == 0 ? 1 : 2;
      for (int i = 0; i < 50; ++i) {
        Session::CallableHandle handle = -1;
        if (!session->MakeCallable({.feed = {"x"}, .fetch = {fetch}}, &handle).ok()) {
          ++failures[t];
          continue;
        }
        std::vector<Tensor> out;
        const absl::Status s =
            session->RunCallable(handle, {Tensor::Scalar<int32_t>(i)}, &out, nullptr);
        if (!s.ok() || out[0].scalar<int32_t>()() != i + added) ++failures[t];
        if (!session->ReleaseCallable(handle).ok()) ++failures[t];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  EXPECT_EQ(session->NumCachedExecutors(), 2);
}

}  // namespace
}  // namespace minitf
