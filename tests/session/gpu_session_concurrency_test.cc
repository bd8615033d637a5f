// Concurrency on SimGPU devices (run under ThreadSanitizer by `make check`):
// many steps of one session in flight at once on one GPU, and two sessions
// with their own allocator stacks sharing one device's compute engine.
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "session/session.h"

namespace minitf {
namespace {

constexpr char kGPU[] = "/device:GPU:0";

// y = sum((x * 2 + 1)^2) over a [4] vector, on the GPU; x arrives from the
// host and y returns to it, so every step crosses devices twice.
GraphDef SquareSumGraph() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Scope gpu = root.WithDevice(kGPU);
  auto z = ops::Add(gpu, ops::Mul(gpu, x, Tensor::Scalar<float>(2)), Tensor::Scalar<float>(1));
  ops::Sum(gpu.WithOpName("y"), ops::Square(gpu, z), {0});
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

// Each square in float, their sum in double. The kernel adds in float, in
// an order of Eigen's choosing, so the answer is checked to float's
// precision: a step given another step's input is off by far more.
float Expected(float v) {
  double total = 0;
  for (float x : {v, v + 1, v + 2, v + 3}) {
    const float z = 2 * x + 1;
    total += static_cast<double>(z * z);
  }
  return static_cast<float>(total);
}

// Runs `runs` steps with distinct inputs; the number of wrong or failed ones.
int RunSteps(Session* session, int thread, int runs) {
  int failures = 0;
  for (int i = 0; i < runs; ++i) {
    const float v = static_cast<float>(thread * 100 + i);
    std::vector<Tensor> out;
    RunOptions options;
    options.timeout_in_ms = 60000;
    absl::Status s = session->Run(options, {{"x", Tensor::FromVector<float>({v, v + 1, v + 2, v + 3})}},
                                  {"y"}, {}, &out, nullptr);
    if (!s.ok() || std::abs(out[0].scalar<float>()() - Expected(v)) > 1e-6f * Expected(v)) {
      ++failures;
    }
  }
  return failures;
}

SessionOptions Options(bool private_allocators) {
  SessionOptions options;
  options.config.inter_op_parallelism_threads = 4;
  options.config.intra_op_parallelism_threads = 1;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = "memory=256MiB,mode=functional";
  options.config.gpu_options.private_allocators = private_allocators;
  return options;
}

TEST(GPUSessionConcurrencyTest, ConcurrentStepsOfOneSessionOnOneGpuGiveTheirOwnResults) {
  auto session = NewSession(Options(false));
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Create(SquareSumGraph()).ok());
  constexpr int kThreads = 4;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { failures[t] = RunSteps(session->get(), t, 40); });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

TEST(GPUSessionConcurrencyTest, TwoSessionsShareOneDeviceConcurrently) {
  auto first = NewSession(Options(true));
  auto second = NewSession(Options(true));
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_TRUE((*first)->Create(SquareSumGraph()).ok());
  ASSERT_TRUE((*second)->Create(SquareSumGraph()).ok());
  int first_failures = -1, second_failures = -1;
  std::thread a([&] { first_failures = RunSteps(first->get(), 1, 60); });
  std::thread b([&] { second_failures = RunSteps(second->get(), 2, 60); });
  a.join();
  b.join();
  EXPECT_EQ(first_failures, 0);
  EXPECT_EQ(second_failures, 0);
}

// A stream's callback (a transfer finishing) may still be inside the
// session's inter-op pool handing over the step's last node when the step
// completes and Run returns; destroying the session right then must wait
// for it instead of freeing the pool under it.
TEST(GPUSessionConcurrencyTest, DestroyingASessionRightAfterACrossDeviceStepIsSafe) {
  for (int i = 0; i < 100; ++i) {
    auto session = NewSession(Options(/*private_allocators=*/true));
    ASSERT_TRUE(session.ok()) << session.status();
    ASSERT_TRUE((*session)->Create(SquareSumGraph()).ok());
    EXPECT_EQ(RunSteps(session->get(), i, 1), 0);
  }
}

}  // namespace
}  // namespace minitf
