// Many threads calling Run on one session at once (run under ThreadSanitizer
// by `make check`).
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "session/direct_session.h"

namespace minitf {
namespace {

TEST(DirectSessionConcurrencyTest, ConcurrentRunsGetTheirOwnResults) {
  // y = x + 4 through a mix of cheap and expensive nodes, so steps overlap on
  // the inter-op pool.
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  Output a = OpBuilder(root, "_TestExpensiveIncrement").Input(x).Finalize1();
  Output b = OpBuilder(root, "_TestIncrement").Input(a).Finalize1();
  Output c = OpBuilder(root, "_TestExpensiveIncrement").Input(b).Finalize1();
  Output d = OpBuilder(root, "_TestAsyncIdentity").Input(c).Finalize1();
  OpBuilder(root.WithOpName("y"), "_TestIncrement").Input(d).Finalize1();
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  SessionOptions options;
  options.config.inter_op_parallelism_threads = 4;
  auto session = NewSession(options);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(def).ok());

  constexpr int kThreads = 8;
  constexpr int kRunsPerThread = 100;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRunsPerThread; ++i) {
        const int32_t value = t * 1000 + i;
        std::vector<Tensor> out;
        // Alternate fetch orders so both cache lookups race too.
        std::vector<std::string> fetches =
            i % 2 == 0 ? std::vector<std::string>{"y"} : std::vector<std::string>{"y", "x"};
        absl::Status s =
            (*session)->Run({{"x", Tensor::FromVector<int32_t>({value, -value})}}, fetches, {},
                            &out);
        if (!s.ok() || out[0].flat<int32_t>()(0) != value + 4 ||
            out[0].flat<int32_t>()(1) != -value + 4) {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

// "blocked" runs until its step is cancelled; "inc" gives 1 + 1.
GraphDef BlockedAndIncrementGraph() {
  Scope root = Scope::NewRootScope();
  Output c = ops::Const(root, Tensor::Scalar<int32_t>(1));
  OpBuilder(root.WithOpName("blocked"), "_TestBlockUntilCancelled").Input(c).Finalize1();
  OpBuilder(root.WithOpName("inc"), "_TestIncrement").Input(c).Finalize1();
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

TEST(DirectSessionConcurrencyTest, ConcurrentTimeoutsAndSuccessesDoNotInterfere) {
  auto session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(BlockedAndIncrementGraph()).ok());
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      RunOptions options;
      options.timeout_in_ms = 5;
      for (int i = 0; i < 20; ++i) {
        std::vector<Tensor> out;
        if (t % 2 == 0) {
          absl::Status s = (*session)->Run(options, {}, {"blocked"}, {}, &out, nullptr);
          if (s.code() != absl::StatusCode::kDeadlineExceeded) ++wrong[t];
        } else {
          absl::Status s = (*session)->Run({}, {"inc"}, {}, &out);
          if (!s.ok() || out[0].scalar<int32_t>()() != 2) ++wrong[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

// RunOptions::cancellation_manager stops the one Run it is given, from
// another thread, and leaves the session's other Runs alone.
TEST(DirectSessionConcurrencyTest, RunCancellationStopsOnlyItsOwnRun) {
  auto session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(BlockedAndIncrementGraph()).ok());
  CancellationManager cancel;
  RunOptions options;
  options.cancellation_manager = &cancel;
  absl::Status blocked_status;
  std::thread blocked([&] {
    std::vector<Tensor> out;
    blocked_status = (*session)->Run(options, {}, {"blocked"}, {}, &out, nullptr);
  });
  // The other Run completes while the first is blocked.
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {"inc"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<int32_t>()(), 2);
  cancel.StartCancel();
  blocked.join();
  EXPECT_EQ(blocked_status.code(), absl::StatusCode::kCancelled) << blocked_status;
  // A Run given a manager that is already cancelled does not start.
  absl::Status again = (*session)->Run(options, {}, {"inc"}, {}, &out, nullptr);
  EXPECT_EQ(again.code(), absl::StatusCode::kCancelled) << again;
  // The session still runs.
  ASSERT_TRUE((*session)->Run({}, {"inc"}, {}, &out).ok());
}

}  // namespace
}  // namespace minitf
