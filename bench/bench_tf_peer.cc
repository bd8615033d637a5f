// minitf's half of the side-by-side comparison with TensorFlow (Google
// Benchmark). bench/tf_compare/tf_bench.cc builds the same graphs with
// TensorFlow's C++ API and registers benchmarks of the same names;
// bench/tf_compare/run.sh runs the two binaries interleaved and prints the
// ratios (docs/BENCHMARKS.md, "Side by side with TensorFlow").
//
//   build/bin/bench_tf_peer
//
// Through a Session (CPU only: device_count {"GPU": 0}; one inter-op thread,
// intra-op 1; every node here is cheap or the only one ready, so the step
// runs on the thread that calls Run):
// BM_SessionNoOpChain/N:  N NoOps chained by control edges; target the last.
// BM_SessionFanOutIn/N:   one root NoOp, N NoOps, one sink NoOp; target the
//                         sink.
// BM_SessionRunNoOp:      one NoOp target, no feeds or fetches.
// BM_SessionRunAdd:       feed two float scalars, fetch their sum.
// BM_RunCallableAdd:      the same step through a callable.
// BM_SessionRunSum/A:     feed a [2000, 2000] float matrix, fetch its Sum
//                         over every axis (A = 0), its columns (1) or its
//                         rows (2).
// The executor alone, on one ThreadPoolDevice (no session, no cancellation
// manager), as bench_executor.cc does:
// BM_ExecutorNoOpChain/N, BM_ExecutorFanOutIn/N.
//
// Per-node costs are the slope between N = 1000 and N = 10000, which
// run.sh computes from the per-Run times; each benchmark also reports
// ns_per_node (the whole Run over N) for a standalone run.
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "device/cpu_device.h"
#include "ops/standard_ops.h"
#include "runtime/executor.h"
#include "runtime/graph.h"
#include "session/session.h"

namespace minitf {
namespace {

NodeDef NoOpDef(const std::string& name, const std::vector<std::string>& control_inputs) {
  NodeDef n;
  n.name = name;
  n.op = "NoOp";
  for (const std::string& c : control_inputs) n.input.push_back("^" + c);
  return n;
}

// n0 <- n1 <- ... <- n{N-1}, by control edges; the last node is the target.
GraphDef NoOpChain(int n) {
  GraphDef def;
  def.node.push_back(NoOpDef("n0", {}));
  for (int i = 1; i < n; ++i) {
    def.node.push_back(NoOpDef(absl::StrCat("n", i), {absl::StrCat("n", i - 1)}));
  }
  return def;
}

// "root" -> m0..m{N-1} -> "sink", by control edges.
GraphDef FanOutIn(int n) {
  GraphDef def;
  def.node.push_back(NoOpDef("root", {}));
  std::vector<std::string> middle;
  for (int i = 0; i < n; ++i) {
    middle.push_back(absl::StrCat("m", i));
    def.node.push_back(NoOpDef(middle.back(), {"root"}));
  }
  def.node.push_back(NoOpDef("sink", middle));
  return def;
}

// z = x + y on two float placeholders, and a lone NoOp "noop".
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

// CPU only, and as close to "run the step on the caller" as minitf allows:
// minitf has no "inter-op threads < 0 means the calling thread"; cheap nodes
// always run inline on the caller, so one pool thread is never used here.
std::unique_ptr<Session> MakeSession(const GraphDef& def) {
  SessionOptions options;
  options.config.device_count["GPU"] = 0;
  options.config.inter_op_parallelism_threads = 1;
  options.config.intra_op_parallelism_threads = 1;
  // As TensorFlow's side: every node of the graph runs (CSE would merge the
  // fan-out's NoOps).
  options.config.graph_options = GraphOptions::Unoptimized();
  auto session = NewSession(options);
  if (!session.ok() || !(*session)->Create(def).ok()) std::abort();
  return *std::move(session);
}

void ReportNsPerNode(benchmark::State& state, int nodes) {
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(nodes) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void RunTarget(benchmark::State& state, const GraphDef& def, const std::string& target) {
  auto session = MakeSession(def);
  // The first Run builds and caches the executor; it is not timed.
  if (!session->Run({}, {}, {target}, nullptr).ok()) std::abort();
  for (auto _ : state) {
    if (!session->Run({}, {}, {target}, nullptr).ok()) state.SkipWithError("Run failed");
  }
  ReportNsPerNode(state, static_cast<int>(def.node.size()));
}

void BM_SessionNoOpChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  RunTarget(state, NoOpChain(n), absl::StrCat("n", n - 1));
}
BENCHMARK(BM_SessionNoOpChain)->Arg(1000)->Arg(10000)->UseRealTime();

void BM_SessionFanOutIn(benchmark::State& state) {
  RunTarget(state, FanOutIn(static_cast<int>(state.range(0))), "sink");
}
BENCHMARK(BM_SessionFanOutIn)->Arg(1000)->Arg(10000)->UseRealTime();

void BM_SessionRunNoOp(benchmark::State& state) {
  auto session = MakeSession(AddGraph());
  if (!session->Run({}, {}, {"noop"}, nullptr).ok()) std::abort();
  for (auto _ : state) {
    if (!session->Run({}, {}, {"noop"}, nullptr).ok()) state.SkipWithError("Run failed");
  }
}
BENCHMARK(BM_SessionRunNoOp)->UseRealTime();

void BM_SessionRunAdd(benchmark::State& state) {
  auto session = MakeSession(AddGraph());
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Tensor::Scalar<float>(1.0f)}, {"y", Tensor::Scalar<float>(2.0f)}};
  std::vector<Tensor> out;
  if (!session->Run(feeds, {"z"}, {}, &out).ok()) std::abort();
  for (auto _ : state) {
    if (!session->Run(feeds, {"z"}, {}, &out).ok()) state.SkipWithError("Run failed");
  }
}
BENCHMARK(BM_SessionRunAdd)->UseRealTime();

// Sums of a [2000, 2000] placeholder "x": "sum_all", "sum_columns",
// "sum_rows".
GraphDef SumGraph() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Sum(root.WithOpName("sum_all"), x, {0, 1});
  ops::Sum(root.WithOpName("sum_columns"), x, {0});
  ops::Sum(root.WithOpName("sum_rows"), x, {1});
  GraphDef def;
  if (!root.ToGraphDef(&def).ok()) std::abort();
  return def;
}

void BM_SessionRunSum(benchmark::State& state) {
  auto session = MakeSession(SumGraph());
  Tensor x(DT_FLOAT, TensorShape({2000, 2000}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = 0.001f * (i % 1000);
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", x}};
  const std::string fetch = std::vector<std::string>{"sum_all", "sum_columns",
                                                     "sum_rows"}[state.range(0)];
  std::vector<Tensor> out;
  if (!session->Run(feeds, {fetch}, {}, &out).ok()) std::abort();
  for (auto _ : state) {
    if (!session->Run(feeds, {fetch}, {}, &out).ok()) state.SkipWithError("Run failed");
  }
}
BENCHMARK(BM_SessionRunSum)->Arg(0)->Arg(1)->Arg(2)->UseRealTime();

// TensorFlow's Session::MakeCallable / RunCallable / ReleaseCallable.
void BM_RunCallableAdd(benchmark::State& state) {
  auto session = MakeSession(AddGraph());
  CallableOptions options;
  options.feed = {"x", "y"};
  options.fetch = {"z"};
  Session::CallableHandle handle;
  if (!session->MakeCallable(options, &handle).ok()) std::abort();
  const std::vector<Tensor> feeds = {Tensor::Scalar<float>(1.0f), Tensor::Scalar<float>(2.0f)};
  std::vector<Tensor> out;
  if (!session->RunCallable(handle, feeds, &out, nullptr).ok()) std::abort();
  for (auto _ : state) {
    if (!session->RunCallable(handle, feeds, &out, nullptr).ok()) {
      state.SkipWithError("RunCallable failed");
    }
  }
  if (!session->ReleaseCallable(handle).ok()) std::abort();
}
BENCHMARK(BM_RunCallableAdd)->UseRealTime();

// The executor alone: the graph's own nodes on one CPU device, no session.
void RunExecutor(benchmark::State& state, const GraphDef& def) {
  ThreadPoolDevice device(0, 1, cpu_allocator());
  ThreadPool pool("bench", 1);
  auto graph = ConvertGraphDefToGraph(def);
  if (!graph.ok()) std::abort();
  const int nodes = (*graph)->num_op_nodes();
  LocalExecutorParams params;
  params.device = &device;
  auto executor = NewLocalExecutor(params, *std::move(graph));
  if (!executor.ok()) std::abort();
  Executor::Args args;
  args.runner = [&pool](std::function<void()> fn) { pool.Schedule(std::move(fn)); };
  for (auto _ : state) {
    if (!(*executor)->Run(args).ok()) state.SkipWithError("step failed");
  }
  ReportNsPerNode(state, nodes);
}

void BM_ExecutorNoOpChain(benchmark::State& state) {
  RunExecutor(state, NoOpChain(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_ExecutorNoOpChain)->Arg(1000)->Arg(10000)->UseRealTime();

void BM_ExecutorFanOutIn(benchmark::State& state) {
  RunExecutor(state, FanOutIn(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_ExecutorFanOutIn)->Arg(1000)->Arg(10000)->UseRealTime();

}  // namespace
}  // namespace minitf

BENCHMARK_MAIN();
