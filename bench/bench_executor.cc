// Executor overhead per node (Google Benchmark).
//
//   build/bin/bench_executor
//
// BM_ExecutorChain/N:     N NoOp nodes in a chain of control edges.
// BM_ExecutorFanOutIn/N:  one NoOp fanning out to N NoOps that fan back in.
// BM_DirectKernelCalls/N: the baseline: the same N NoOp kernels called
//                         directly in a loop (context set-up and a virtual
//                         call per node), so ns_per_node of the executor
//                         benchmarks divided by this one is the executor's
//                         overhead factor, measured in the same run.
// Each reports ns_per_node.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "device/cpu_device.h"
#include "runtime/executor.h"
#include "runtime/graph.h"
#include "runtime/kernel_registry.h"

namespace minitf {
namespace {

NodeDef NoOpDef(const std::string& name, std::vector<std::string> control_inputs) {
  NodeDef n;
  n.name = name;
  n.op = "NoOp";
  for (std::string& c : control_inputs) n.input.push_back("^" + c);
  return n;
}

GraphDef Chain(int n) {
  GraphDef def;
  def.node.push_back(NoOpDef("n0", {}));
  for (int i = 1; i < n; ++i) def.node.push_back(NoOpDef(absl::StrCat("n", i), {absl::StrCat("n", i - 1)}));
  return def;
}

GraphDef FanOutIn(int n) {
  GraphDef def;
  def.node.push_back(NoOpDef("source", {}));
  std::vector<std::string> middle;
  for (int i = 0; i < n; ++i) {
    middle.push_back(absl::StrCat("m", i));
    def.node.push_back(NoOpDef(middle.back(), {"source"}));
  }
  def.node.push_back(NoOpDef("sink", middle));
  return def;
}

struct Fixture {
  explicit Fixture(const GraphDef& def) : device(0, 1, cpu_allocator()), pool("bench", 2) {
    auto graph = ConvertGraphDefToGraph(def);
    if (!graph.ok()) std::abort();
    num_nodes = (*graph)->num_op_nodes();
    LocalExecutorParams params;
    params.device = &device;
    auto e = NewLocalExecutor(params, *std::move(graph));
    if (!e.ok()) std::abort();
    executor = *std::move(e);
  }
  ThreadPoolDevice device;
  ThreadPool pool;
  std::unique_ptr<Executor> executor;
  int num_nodes = 0;
};

// Wall-clock nanoseconds per node over the whole timed loop.
void ReportNsPerNode(benchmark::State& state, absl::Duration elapsed, int nodes) {
  const double total = static_cast<double>(nodes) * static_cast<double>(state.iterations());
  state.counters["ns_per_node"] = absl::ToDoubleNanoseconds(elapsed) / std::max(total, 1.0);
}

void RunSteps(benchmark::State& state, const GraphDef& def) {
  Fixture f(def);
  Executor::Args args;
  args.runner = [&f](std::function<void()> fn) { f.pool.Schedule(std::move(fn)); };
  const absl::Time start = absl::Now();
  for (auto _ : state) {
    if (!f.executor->Run(args).ok()) state.SkipWithError("step failed");
  }
  ReportNsPerNode(state, absl::Now() - start, f.num_nodes);
}

void BM_ExecutorChain(benchmark::State& state) {
  RunSteps(state, Chain(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_ExecutorChain)->Arg(1000)->Arg(10000)->UseRealTime();

void BM_ExecutorFanOutIn(benchmark::State& state) {
  RunSteps(state, FanOutIn(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_ExecutorFanOutIn)->Arg(1000)->Arg(10000)->UseRealTime();

void BM_DirectKernelCalls(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ThreadPoolDevice device(0, 1, cpu_allocator());
  std::vector<std::unique_ptr<OpKernel>> kernels;
  for (int i = 0; i < n; ++i) {
    auto k = CreateOpKernel(DEVICE_CPU, &device, NoOpDef(absl::StrCat("n", i), {}));
    if (!k.ok()) std::abort();
    kernels.push_back(*std::move(k));
  }
  const absl::Time start = absl::Now();
  for (auto _ : state) {
    for (auto& k : kernels) {
      OpKernelContext::Params params;
      params.device = &device;
      params.op_kernel = k.get();
      OpKernelContext ctx(&params);
      device.Compute(k.get(), &ctx);
      benchmark::DoNotOptimize(ctx.status().ok());
    }
  }
  ReportNsPerNode(state, absl::Now() - start, n);
}
BENCHMARK(BM_DirectKernelCalls)->Arg(1000)->Arg(10000)->UseRealTime();

}  // namespace
}  // namespace minitf

BENCHMARK_MAIN();
