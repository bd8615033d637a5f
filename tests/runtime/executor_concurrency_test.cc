// One executor running many steps at once from many threads (run under
// ThreadSanitizer by `make check`).
#include <atomic>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "device/cpu_device.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "runtime/executor.h"

namespace minitf {
namespace {

NodeDef Def(const std::string& name, const std::string& op, std::vector<std::string> inputs,
            AttrValueMap attrs) {
  NodeDef n;
  n.name = name;
  n.op = op;
  n.input = std::move(inputs);
  n.attr = std::move(attrs);
  return n;
}

// out = pred ? async(x) + 1 : x + 1 + 1 (expensive increments), and an
// optional failing branch when `fail` is fed true.
GraphDef CondGraph() {
  GraphDef def;
  def.node = {
      Def("x", "_Arg", {}, {{"T", DT_INT32}, {"index", 0}}),
      Def("pred", "_Arg", {}, {{"T", DT_BOOL}, {"index", 1}}),
      Def("fail", "_Arg", {}, {{"T", DT_BOOL}, {"index", 2}}),
      Def("sw", "Switch", {"x", "pred"}, {{"T", DT_INT32}}),
      Def("t_async", "_TestAsyncIdentity", {"sw:1"}, {{"T", DT_INT32}}),
      Def("t_inc", "_TestExpensiveIncrement", {"t_async"}, {}),
      Def("f_inc1", "_TestExpensiveIncrement", {"sw:0"}, {}),
      Def("f_inc2", "_TestIncrement", {"f_inc1"}, {}),
      Def("merge", "Merge", {"t_inc", "f_inc2"}, {{"T", DT_INT32}, {"N", 2}}),
      Def("fail_sw", "Switch", {"x", "fail"}, {{"T", DT_INT32}}),
      Def("boom", "_TestFail", {"fail_sw:1"}, {{"T", DT_INT32}}),
      Def("out", "_Retval", {"merge"}, {{"T", DT_INT32}, {"index", 0}}),
      Def("sink", "NoOp", {"^boom"}, {}),
  };
  return def;
}

TEST(ExecutorConcurrencyTest, ConcurrentStepsWithBranchesAsyncNodesAndErrors) {
  ThreadPoolDevice device(0, 2, cpu_allocator());
  ThreadPool pool("inter_op", 4);
  auto graph = ConvertGraphDefToGraph(CondGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  LocalExecutorParams params;
  params.device = &device;
  auto executor = NewLocalExecutor(params, *std::move(graph));
  ASSERT_TRUE(executor.ok()) << executor.status();

  constexpr int kThreads = 8, kSteps = 100;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kSteps; ++i) {
        const int32_t x = t * 1000 + i;
        const bool pred = (i % 2) == 0;
        const bool fail = (i % 7) == 3;
        FunctionCallFrame frame(
            {Tensor::Scalar<int32_t>(x), Tensor::Scalar<bool>(pred), Tensor::Scalar<bool>(fail)},
            1);
        CancellationManager cm;
        Executor::Args args;
        args.step_id = t * kSteps + i;
        args.call_frame = &frame;
        args.cancellation_manager = &cm;
        args.runner = [&pool](std::function<void()> fn) { pool.Schedule(std::move(fn)); };
        absl::Status s = (*executor)->Run(args);
        if (fail) {
          if (s.code() != absl::StatusCode::kAborted) ++wrong;
          continue;
        }
        std::vector<Tensor> out;
        if (!s.ok() || !frame.ConsumeRetvals(&out).ok() ||
            out[0].scalar<int32_t>()() != (pred ? x + 1 : x + 2)) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace minitf
