// Session::Run overhead (Google Benchmark).
//
//   build/bin/bench_session
//
// BM_SessionRunAdd:       Session::Run of z = x + y on two fed scalars, with
//                         the executor cached (every iteration after the
//                         first reuses it).
// BM_ExecutorRunAdd:      the baseline: the same pruned graph (_Arg, _Arg,
//                         Add, _Retval) run through its Executor directly with
//                         a call frame, measured in the same run; the
//                         difference is what the session layer costs.
// BM_SessionRunNoOp:      Session::Run of a single NoOp target.
// BM_RunCallableAdd:      z = x + y through RunCallable, and the same step
//                         through Run, on a CPU-only session: what binding
//                         the signature once saves per call.
// Everything runs on the CPU: the sessions have no GPU (device_count
// {"GPU": 0}; by default the Add would be placed on SimGPU and the step
// would time host-device copies), one inter-op thread and intra-op 1, and
// the executor baseline has one CPU device and a one-thread pool.
#include <memory>

#include "benchmark/benchmark.h"
#include "device/cpu_device.h"
#include "ops/standard_ops.h"
#include "runtime/executor.h"
#include "session/session.h"

namespace minitf {
namespace {

GraphDef AddGraph() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT);
  ops::Add(root.WithOpName("z"), x, y);
  ops::NoOp(root.WithOpName("noop"));
  GraphDef def;
  if (!root.ToGraphDef(&def).ok()) std::abort();
  return def;
}

std::unique_ptr<Session> MakeSession() {
  SessionOptions options;
  options.config.device_count["GPU"] = 0;
  options.config.inter_op_parallelism_threads = 1;
  options.config.intra_op_parallelism_threads = 1;
  // As TensorFlow's side: every node of the graph runs (CSE would merge the
  // fan-out's NoOps).
  options.config.graph_options = GraphOptions::Unoptimized();
  auto session = NewSession(options);
  if (!session.ok() || !(*session)->Create(AddGraph()).ok()) std::abort();
  return *std::move(session);
}

void BM_SessionRunAdd(benchmark::State& state) {
  auto session = MakeSession();
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Tensor::Scalar<float>(1.0f)}, {"y", Tensor::Scalar<float>(2.0f)}};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run(feeds, {"z"}, {}, &out).ok()) state.SkipWithError("Run failed");
  }
}
BENCHMARK(BM_SessionRunAdd)->UseRealTime();

void BM_SessionRunNoOp(benchmark::State& state) {
  auto session = MakeSession();
  for (auto _ : state) {
    if (!session->Run({}, {}, {"noop"}, nullptr).ok()) state.SkipWithError("Run failed");
  }
}
BENCHMARK(BM_SessionRunNoOp)->UseRealTime();

NodeDef Def(const std::string& name, const std::string& op, std::vector<std::string> inputs,
            AttrValueMap attrs) {
  NodeDef n;
  n.name = name;
  n.op = op;
  n.input = std::move(inputs);
  n.attr = std::move(attrs);
  return n;
}

void BM_ExecutorRunAdd(benchmark::State& state) {
  GraphDef def;
  def.node = {Def("x", "_Arg", {}, {{"T", DT_FLOAT}, {"index", 0}}),
              Def("y", "_Arg", {}, {{"T", DT_FLOAT}, {"index", 1}}),
              Def("z", "Add", {"x", "y"}, {{"T", DT_FLOAT}}),
              Def("r", "_Retval", {"z"}, {{"T", DT_FLOAT}, {"index", 0}})};
  ThreadPoolDevice device(0, 1, cpu_allocator());
  ThreadPool pool("bench", 1);
  auto graph = ConvertGraphDefToGraph(def);
  if (!graph.ok()) std::abort();
  LocalExecutorParams params;
  params.device = &device;
  auto executor = NewLocalExecutor(params, *std::move(graph));
  if (!executor.ok()) std::abort();
  const std::vector<Tensor> args = {Tensor::Scalar<float>(1.0f), Tensor::Scalar<float>(2.0f)};
  for (auto _ : state) {
    FunctionCallFrame frame(args, 1);
    CancellationManager cm;
    Executor::Args exec_args;
    exec_args.call_frame = &frame;
    exec_args.cancellation_manager = &cm;
    exec_args.runner = [&pool](std::function<void()> fn) { pool.Schedule(std::move(fn)); };
    if (!(*executor)->Run(exec_args).ok()) state.SkipWithError("Run failed");
  }
}
BENCHMARK(BM_ExecutorRunAdd)->UseRealTime();

// One CPU device, so the Add and the feeds stay in host memory.
std::unique_ptr<Session> MakeCpuSession() {
  SessionOptions options;
  options.config.device_count["GPU"] = 0;
  options.config.inter_op_parallelism_threads = 2;
  options.config.intra_op_parallelism_threads = 1;
  // As TensorFlow's side: every node of the graph runs (CSE would merge the
  // fan-out's NoOps).
  options.config.graph_options = GraphOptions::Unoptimized();
  auto session = NewSession(options);
  if (!session.ok() || !(*session)->Create(AddGraph()).ok()) std::abort();
  return *std::move(session);
}

void BM_RunCallableAdd(benchmark::State& state) {
  auto session = MakeCpuSession();
  Session::CallableHandle handle = -1;
  if (!session->MakeCallable({.feed = {"x", "y"}, .fetch = {"z"}}, &handle).ok()) std::abort();
  const std::vector<Tensor> feeds = {Tensor::Scalar<float>(1.0f), Tensor::Scalar<float>(2.0f)};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->RunCallable(handle, feeds, &out, nullptr).ok()) {
      state.SkipWithError("RunCallable failed");
    }
  }
}
BENCHMARK(BM_RunCallableAdd)->UseRealTime();

void BM_RunAddOnCpu(benchmark::State& state) {
  auto session = MakeCpuSession();
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Tensor::Scalar<float>(1.0f)}, {"y", Tensor::Scalar<float>(2.0f)}};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run(feeds, {"z"}, {}, &out).ok()) state.SkipWithError("Run failed");
  }
}
BENCHMARK(BM_RunAddOnCpu)->UseRealTime();

}  // namespace
}  // namespace minitf

BENCHMARK_MAIN();
