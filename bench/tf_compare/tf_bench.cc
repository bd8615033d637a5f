// TensorFlow's half of the side-by-side comparison (Google Benchmark),
// against the C++ API of the tensorflow-cpu wheel. Built and run only by
// bench/tf_compare/run.sh, never by minitf's build. The graphs and the
// benchmark names are those of bench/bench_tf_peer.cc (minitf's half), so
// the two binaries' results pair up by name.
//
// Session: CPU only (device_count {"GPU": 0}), Grappler off (it would delete
// the NoOp chains), graph optimizer at L0 (no constant folding, CSE or
// inlining), inter-op threads -1 (TensorFlow then runs the step on the
// thread that calls Run), intra-op 1.
// BM_SessionNoOpChain/N:  N NoOps chained by control edges; target the last.
// BM_SessionFanOutIn/N:   one root NoOp, N NoOps, one sink NoOp; target the
//                         sink.
// BM_SessionRunNoOp:      one NoOp target, no feeds or fetches.
// BM_SessionRunAdd:       feed two float scalars, fetch their sum.
// BM_RunCallableAdd:      the same step through MakeCallable/RunCallable.
// BM_SessionRunSum/A:     feed a [2000, 2000] float matrix, fetch its Sum
//                         over every axis (A = 0), its columns (1) or its
//                         rows (2).
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "tensorflow/cc/framework/scope.h"
#include "tensorflow/cc/ops/array_ops.h"
#include "tensorflow/cc/ops/math_ops.h"
#include "tensorflow/cc/ops/no_op.h"
#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/framework/node_def.pb.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/protobuf/config.pb.h"
#include "tensorflow/core/protobuf/rewriter_config.pb.h"
#include "tensorflow/core/public/session.h"
#include "tensorflow/core/public/session_options.h"

namespace {

void CheckOk(const absl::Status& s, const char* what) {
  if (!s.ok()) {
    std::cerr << what << ": " << s << "\n";
    std::abort();
  }
}

void AddNoOp(tensorflow::GraphDef* def, const std::string& name,
             const std::vector<std::string>& control_inputs) {
  tensorflow::NodeDef* n = def->add_node();
  n->set_name(name);
  n->set_op("NoOp");
  for (const std::string& c : control_inputs) n->add_input("^" + c);
}

// n0 <- n1 <- ... <- n{N-1}, by control edges; the last node is the target.
tensorflow::GraphDef NoOpChain(int n) {
  tensorflow::GraphDef def;
  AddNoOp(&def, "n0", {});
  for (int i = 1; i < n; ++i) AddNoOp(&def, "n" + std::to_string(i), {"n" + std::to_string(i - 1)});
  return def;
}

// "root" -> m0..m{N-1} -> "sink", by control edges.
tensorflow::GraphDef FanOutIn(int n) {
  tensorflow::GraphDef def;
  AddNoOp(&def, "root", {});
  std::vector<std::string> middle;
  for (int i = 0; i < n; ++i) {
    middle.push_back("m" + std::to_string(i));
    AddNoOp(&def, middle.back(), {"root"});
  }
  AddNoOp(&def, "sink", middle);
  return def;
}

// z = x + y on two float placeholders, and a lone NoOp "noop".
tensorflow::GraphDef AddGraph() {
  tensorflow::Scope root = tensorflow::Scope::NewRootScope();
  auto x = tensorflow::ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT);
  auto y = tensorflow::ops::Placeholder(root.WithOpName("y"), tensorflow::DT_FLOAT);
  tensorflow::ops::Add(root.WithOpName("z"), x, y);
  tensorflow::ops::NoOp(root.WithOpName("noop"));
  tensorflow::GraphDef def;
  CheckOk(root.ToGraphDef(&def), "ToGraphDef");
  return def;
}

std::unique_ptr<tensorflow::Session> MakeSession(const tensorflow::GraphDef& def) {
  tensorflow::SessionOptions options;
  tensorflow::ConfigProto& config = options.config;
  (*config.mutable_device_count())["GPU"] = 0;
  config.set_inter_op_parallelism_threads(-1);
  config.set_intra_op_parallelism_threads(1);
  tensorflow::GraphOptions* graph = config.mutable_graph_options();
  graph->mutable_rewrite_options()->set_disable_meta_optimizer(true);
  tensorflow::OptimizerOptions* opt = graph->mutable_optimizer_options();
  opt->set_opt_level(tensorflow::OptimizerOptions::L0);
  opt->set_do_constant_folding(false);
  opt->set_do_common_subexpression_elimination(false);
  opt->set_do_function_inlining(false);
  std::unique_ptr<tensorflow::Session> session(tensorflow::NewSession(options));
  if (session == nullptr) std::abort();
  CheckOk(session->Create(def), "Create");
  return session;
}

void ReportNsPerNode(benchmark::State& state, int nodes) {
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(nodes) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void RunTarget(benchmark::State& state, const tensorflow::GraphDef& def,
               const std::string& target) {
  auto session = MakeSession(def);
  // The first Run builds and caches the executor; it is not timed.
  CheckOk(session->Run({}, {}, {target}, nullptr), "first Run");
  for (auto _ : state) {
    if (!session->Run({}, {}, {target}, nullptr).ok()) state.SkipWithError("Run failed");
  }
  ReportNsPerNode(state, def.node_size());
}

void BM_SessionNoOpChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  RunTarget(state, NoOpChain(n), "n" + std::to_string(n - 1));
}
BENCHMARK(BM_SessionNoOpChain)->Arg(1000)->Arg(10000)->UseRealTime();

void BM_SessionFanOutIn(benchmark::State& state) {
  RunTarget(state, FanOutIn(static_cast<int>(state.range(0))), "sink");
}
BENCHMARK(BM_SessionFanOutIn)->Arg(1000)->Arg(10000)->UseRealTime();

void BM_SessionRunNoOp(benchmark::State& state) {
  auto session = MakeSession(AddGraph());
  CheckOk(session->Run({}, {}, {"noop"}, nullptr), "first Run");
  for (auto _ : state) {
    if (!session->Run({}, {}, {"noop"}, nullptr).ok()) state.SkipWithError("Run failed");
  }
}
BENCHMARK(BM_SessionRunNoOp)->UseRealTime();

void BM_SessionRunAdd(benchmark::State& state) {
  auto session = MakeSession(AddGraph());
  const std::vector<std::pair<std::string, tensorflow::Tensor>> feeds = {
      {"x", tensorflow::Tensor(1.0f)}, {"y", tensorflow::Tensor(2.0f)}};
  std::vector<tensorflow::Tensor> out;
  CheckOk(session->Run(feeds, {"z"}, {}, &out), "first Run");
  for (auto _ : state) {
    if (!session->Run(feeds, {"z"}, {}, &out).ok()) state.SkipWithError("Run failed");
  }
}
BENCHMARK(BM_SessionRunAdd)->UseRealTime();

// Sums of a [2000, 2000] placeholder "x": "sum_all", "sum_columns",
// "sum_rows".
tensorflow::GraphDef SumGraph() {
  tensorflow::Scope root = tensorflow::Scope::NewRootScope();
  auto x = tensorflow::ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT);
  tensorflow::ops::Sum(root.WithOpName("sum_all"), x, {0, 1});
  tensorflow::ops::Sum(root.WithOpName("sum_columns"), x, {0});
  tensorflow::ops::Sum(root.WithOpName("sum_rows"), x, {1});
  tensorflow::GraphDef def;
  CheckOk(root.ToGraphDef(&def), "ToGraphDef");
  return def;
}

void BM_SessionRunSum(benchmark::State& state) {
  auto session = MakeSession(SumGraph());
  tensorflow::Tensor x(tensorflow::DT_FLOAT, tensorflow::TensorShape({2000, 2000}));
  auto flat = x.flat<float>();
  for (int64_t i = 0; i < flat.size(); ++i) flat(i) = 0.001f * (i % 1000);
  const std::vector<std::pair<std::string, tensorflow::Tensor>> feeds = {{"x", x}};
  const std::string fetch = std::vector<std::string>{"sum_all", "sum_columns",
                                                     "sum_rows"}[state.range(0)];
  std::vector<tensorflow::Tensor> out;
  CheckOk(session->Run(feeds, {fetch}, {}, &out), "first Run");
  for (auto _ : state) {
    if (!session->Run(feeds, {fetch}, {}, &out).ok()) state.SkipWithError("Run failed");
  }
}
BENCHMARK(BM_SessionRunSum)->Arg(0)->Arg(1)->Arg(2)->UseRealTime();

void BM_RunCallableAdd(benchmark::State& state) {
  auto session = MakeSession(AddGraph());
  tensorflow::CallableOptions options;
  options.add_feed("x");
  options.add_feed("y");
  options.add_fetch("z");
  tensorflow::Session::CallableHandle handle;
  CheckOk(session->MakeCallable(options, &handle), "MakeCallable");
  const std::vector<tensorflow::Tensor> feeds = {tensorflow::Tensor(1.0f),
                                                 tensorflow::Tensor(2.0f)};
  std::vector<tensorflow::Tensor> out;
  CheckOk(session->RunCallable(handle, feeds, &out, nullptr), "first RunCallable");
  for (auto _ : state) {
    if (!session->RunCallable(handle, feeds, &out, nullptr).ok()) {
      state.SkipWithError("RunCallable failed");
    }
  }
  CheckOk(session->ReleaseCallable(handle), "ReleaseCallable");
}
BENCHMARK(BM_RunCallableAdd)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
