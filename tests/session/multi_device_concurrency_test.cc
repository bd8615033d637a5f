// Many threads running a graph split over two CPU devices at once (run
// under ThreadSanitizer by `make check`): every step has its own
// rendezvous, and steps that fail or time out do not disturb the others.
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "session/direct_session.h"

namespace minitf {
namespace {

constexpr char kCpu0[] = "/device:CPU:0";
constexpr char kCpu1[] = "/device:CPU:1";

std::unique_ptr<Session> TwoCpuSession(const GraphDef& def) {
  SessionOptions options;
  options.config.device_count["CPU"] = 2;
  options.config.inter_op_parallelism_threads = 4;
  options.config.intra_op_parallelism_threads = 1;
  auto session = NewSession(options);
  EXPECT_TRUE(session.ok()) << session.status();
  EXPECT_TRUE((*session)->Create(def).ok());
  return *std::move(session);
}

TEST(MultiDeviceConcurrencyTest, ConcurrentRunsOfASplitGraphGetTheirOwnResults) {
  // y = x + 4, hopping between the devices at every node; z = cond(pred,
  // y + 1 on CPU:1, y on CPU:0).
  Scope root = Scope::NewRootScope();
  Scope dev0 = root.WithDevice(kCpu0);
  Scope dev1 = root.WithDevice(kCpu1);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  Output pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
  Output a = OpBuilder(dev1, "_TestExpensiveIncrement").Input(x).Finalize1();
  Output b = OpBuilder(dev0, "_TestIncrement").Input(a).Finalize1();
  Output c = OpBuilder(dev1, "_TestAsyncIdentity").Input(b).Finalize1();
  Output d = OpBuilder(dev0, "_TestExpensiveIncrement").Input(c).Finalize1();
  Output y = OpBuilder(dev1.WithOpName("y"), "_TestIncrement").Input(d).Finalize1();
  ops::SwitchOutputs sw = ops::Switch(dev0, y, pred);
  Output taken = OpBuilder(dev1, "_TestIncrement").Input(sw.output_true).Finalize1();
  Output other = ops::Identity(dev0, sw.output_false);
  ops::Merge(dev0.WithOpName("z"), {other, taken});
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = TwoCpuSession(def);

  constexpr int kThreads = 8;
  constexpr int kRunsPerThread = 50;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRunsPerThread; ++i) {
        const int32_t value = t * 1000 + i;
        const bool p = (i + t) % 2 == 0;
        std::vector<Tensor> out;
        // Two signatures, so executor-cache lookups race too.
        std::vector<std::string> fetches =
            i % 3 == 0 ? std::vector<std::string>{"z"} : std::vector<std::string>{"z", "y"};
        absl::Status s = session->Run(
            {{"x", Tensor::FromVector<int32_t>({value, -value})}, {"pred", Tensor::Scalar<bool>(p)}},
            fetches, {}, &out);
        const int32_t want = value + 4 + (p ? 1 : 0);
        if (!s.ok() || out[0].flat<int32_t>()(0) != want ||
            out[0].flat<int32_t>()(1) != -value + 4 + (p ? 1 : 0)) {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

TEST(MultiDeviceConcurrencyTest, FailingAndTimedOutStepsDoNotDisturbOthers) {
  Scope root = Scope::NewRootScope();
  Scope dev0 = root.WithDevice(kCpu0);
  Scope dev1 = root.WithDevice(kCpu1);
  Output one = ops::Const(dev0, 1);
  Output blocked = OpBuilder(dev0, "_TestBlockUntilCancelled").Input(one).Finalize1();
  OpBuilder(dev1.WithOpName("after_blocked"), "_TestIncrement").Input(blocked).Finalize1();
  Output fail = OpBuilder(dev1, "_TestFail").Input(one).Finalize1();
  OpBuilder(dev0.WithOpName("after_fail"), "_TestIncrement").Input(fail).Finalize1();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  Output inc = OpBuilder(dev1, "_TestIncrement").Input(x).Finalize1();
  OpBuilder(dev0.WithOpName("ok"), "_TestIncrement").Input(inc).Finalize1();
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = TwoCpuSession(def);

  constexpr int kThreads = 6;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      RunOptions options;
      options.timeout_in_ms = 10;
      for (int i = 0; i < 20; ++i) {
        std::vector<Tensor> out;
        if (t % 3 == 0) {
          absl::Status s = session->Run(options, {}, {"after_blocked"}, {}, &out, nullptr);
          if (s.code() != absl::StatusCode::kDeadlineExceeded) ++wrong[t];
        } else if (t % 3 == 1) {
          absl::Status s = session->Run({}, {"after_fail"}, {}, &out);
          if (s.code() != absl::StatusCode::kAborted) ++wrong[t];
        } else {
          absl::Status s = session->Run({{"x", Tensor::Scalar<int32_t>(i)}}, {"ok"}, {}, &out);
          if (!s.ok() || out[0].scalar<int32_t>()() != i + 2) ++wrong[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace minitf
