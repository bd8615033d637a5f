// DirectSession with two CPU devices and nodes pinned to each: the split
// graph computes what the single-device graph computes, deadness and
// control dependencies cross devices, and failures and deadlines stop every
// partition.
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "session/direct_session.h"
#include "tests/testlib/test_ops.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

constexpr char kCpu0[] = "/device:CPU:0";
constexpr char kCpu1[] = "/device:CPU:1";
constexpr char kFullCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kFullCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

using Feeds = std::vector<std::pair<std::string, Tensor>>;

std::unique_ptr<Session> NewSessionWithCpus(int cpus) {
  SessionOptions options;
  options.config.device_count["CPU"] = cpus;
  options.config.intra_op_parallelism_threads = 2;
  options.config.inter_op_parallelism_threads = 4;
  auto session = NewSession(options);
  EXPECT_TRUE(session.ok()) << session.status();
  return *std::move(session);
}

GraphDef ToGraphDef(const Scope& root) {
  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);
  EXPECT_TRUE(s.ok()) << s;
  return def;
}

// The same graph with every device request dropped.
GraphDef Unpinned(GraphDef def) {
  for (NodeDef& n : def.node) n.device.clear();
  return def;
}

std::vector<Tensor> RunOrDie(Session* session, const Feeds& feeds,
                             const std::vector<std::string>& fetches,
                             const std::vector<std::string>& targets = {},
                             RunMetadata* metadata = nullptr) {
  RunOptions options;
  options.timeout_in_ms = 20000;  // A hang fails the test instead of blocking it.
  if (metadata != nullptr) options.trace_level = RunOptions::FULL_TRACE;
  std::vector<Tensor> out;
  absl::Status s = session->Run(options, feeds, fetches, targets, &out, metadata);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

// Device -> ops that ran there, from a traced step.
std::map<std::string, std::multiset<std::string>> OpsByDevice(const RunMetadata& metadata) {
  std::map<std::string, std::multiset<std::string>> out;
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
    for (const NodeExecStats& n : dev.node_stats) out[dev.device].insert(n.op);
  }
  return out;
}

std::map<std::string, std::string> DeviceOfNode(const RunMetadata& metadata) {
  std::map<std::string, std::string> out;
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
    for (const NodeExecStats& n : dev.node_stats) out[n.node_name] = dev.device;
  }
  return out;
}

void ExpectFloatsNear(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    EXPECT_NEAR(a.flat<float>()(i), b.flat<float>()(i), 1e-4) << "element " << i;
  }
}

Tensor Iota(const TensorShape& shape, float scale) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()(i) = scale * (i % 7 - 3);
  return t;
}

TEST(MultiDeviceTest, MatMulChainSplitAcrossDevicesMatchesOneDevice) {
  Scope root = Scope::NewRootScope();
  Scope dev0 = root.WithDevice(kCpu0);
  Scope dev1 = root.WithDevice(kCpu1);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output h1 = ops::MatMul(dev0, x, ops::Const(dev0, Iota({3, 4}, 0.5f)));
  Output h2 = ops::MatMul(dev1, h1, ops::Const(dev1, Iota({4, 4}, 0.25f)));
  Output h3 = ops::Relu(dev0, ops::MatMul(dev0, h2, ops::Const(dev0, Iota({4, 5}, 0.1f))));
  ops::MatMul(dev1.WithOpName("out"), h3, ops::Const(dev1, Iota({5, 2}, 1.0f)));
  const GraphDef def = ToGraphDef(root);

  auto split = NewSessionWithCpus(2);
  ASSERT_TRUE(split->Create(def).ok());
  auto single = NewSessionWithCpus(1);
  ASSERT_TRUE(single->Create(Unpinned(def)).ok());
  const Feeds feeds = {{"x", Iota({2, 3}, 1.0f)}};
  RunMetadata metadata;
  std::vector<Tensor> got = RunOrDie(split.get(), feeds, {"out"}, {}, &metadata);
  std::vector<Tensor> want = RunOrDie(single.get(), feeds, {"out"});
  ExpectFloatsNear(got[0], want[0]);
  // It really ran on both devices, through transfers.
  auto ops_by_device = OpsByDevice(metadata);
  EXPECT_EQ(ops_by_device[kFullCpu0].count("_Arg"), 1u);
  EXPECT_EQ(ops_by_device[kFullCpu0].count("_Retval"), 1u);
  EXPECT_EQ(ops_by_device[kFullCpu0].count("MatMul"), 2u);
  EXPECT_EQ(ops_by_device[kFullCpu1].count("MatMul"), 2u);
  EXPECT_EQ(ops_by_device[kFullCpu1].count("_Recv"), 2u);  // h1, h3.
  EXPECT_EQ(ops_by_device[kFullCpu0].count("_Recv"), 2u);  // h2, out.
}

TEST(MultiDeviceTest, BroadcastAddAcrossDevicesMatchesOneDevice) {
  Scope root = Scope::NewRootScope();
  Scope dev0 = root.WithDevice(kCpu0);
  Scope dev1 = root.WithDevice(kCpu1);
  Output a = ops::Const(dev0.WithOpName("a"), Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  Output b = ops::Const(dev1.WithOpName("b"), Tensor::FromVector<float>({10, 20, 30}));
  Output c = ops::Add(dev1.WithOpName("c"), a, b);
  ops::Mul(dev0.WithOpName("d"), c, a);
  const GraphDef def = ToGraphDef(root);
  auto split = NewSessionWithCpus(2);
  ASSERT_TRUE(split->Create(def).ok());
  auto single = NewSessionWithCpus(1);
  ASSERT_TRUE(single->Create(Unpinned(def)).ok());
  std::vector<Tensor> got = RunOrDie(split.get(), {}, {"c", "d"});
  std::vector<Tensor> want = RunOrDie(single.get(), {}, {"c", "d"});
  ExpectFloatsNear(got[0], want[0]);
  ExpectFloatsNear(got[1], want[1]);
  EXPECT_EQ(got[1].matrix<float>()(1, 2), (6 + 30) * 6.0f);
}

// w lives on CPU:1; its gradient is computed on CPU:0 and applied on CPU:1
// (ApplyGradientDescent asks for no device and follows the variable).
GraphDef TrainingGraph() {
  Scope root = Scope::NewRootScope();
  Scope dev0 = root.WithDevice(kCpu0);
  Scope dev1 = root.WithDevice(kCpu1);
  Output w = ops::Variable(dev1.WithOpName("w"), TensorShape({2}), DT_FLOAT);
  ops::Assign(dev1.WithOpName("init"), w, Tensor::FromVector<float>({1, -2}));
  Output read = ops::Identity(dev0.WithOpName("read"), w);
  Output error = ops::Sub(dev0, read, ops::Const(dev0, Tensor::FromVector<float>({3, 1})));
  Output grad = ops::Mul(dev0.WithOpName("grad"), ops::Const(dev0, 2.0f), error);
  ops::ApplyGradientDescent(root.WithOpName("update"), w, ops::Const(root, 0.25f), grad);
  return ToGraphDef(root);
}

TEST(MultiDeviceTest, VariableOnOneDeviceTrainedByAGradientFromTheOther) {
  auto split = NewSessionWithCpus(2);
  ASSERT_TRUE(split->Create(TrainingGraph()).ok());
  auto single = NewSessionWithCpus(1);
  ASSERT_TRUE(single->Create(Unpinned(TrainingGraph())).ok());
  RunOrDie(split.get(), {}, {}, {"init"});
  RunOrDie(single.get(), {}, {}, {"init"});
  // w <- w - 0.25 * 2 * (w - target) = (w + target) / 2.
  const std::vector<std::vector<float>> expected = {{2, -0.5f}, {2.5f, 0.25f}, {2.75f, 0.625f}};
  for (const std::vector<float>& want : expected) {
    RunMetadata metadata;
    RunOrDie(split.get(), {}, {}, {"update"}, &metadata);
    RunOrDie(single.get(), {}, {}, {"update"});
    auto devices = DeviceOfNode(metadata);
    EXPECT_EQ(devices["update"], kFullCpu1);
    EXPECT_EQ(devices["grad"], kFullCpu0);
    std::vector<Tensor> got = RunOrDie(split.get(), {}, {"w"});
    std::vector<Tensor> reference = RunOrDie(single.get(), {}, {"w"});
    ExpectFloatsNear(got[0], reference[0]);
    EXPECT_EQ(got[0].flat<float>()(0), want[0]);
    EXPECT_EQ(got[0].flat<float>()(1), want[1]);
  }
}

TEST(MultiDeviceTest, CondAcrossDevicesRunsOnlyTheTakenBranch) {
  Scope root = Scope::NewRootScope();
  Scope dev0 = root.WithDevice(kCpu0);
  Scope dev1 = root.WithDevice(kCpu1);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  Output pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
  ops::SwitchOutputs sw = ops::Switch(dev0.WithOpName("sw"), x, pred);
  // else (CPU:0): x + 1. then (CPU:1): x + 2, and a counter that runs only
  // when the branch is taken.
  Output else_out = OpBuilder(dev0.WithOpName("else"), "_TestIncrement")
                        .Input(sw.output_false).Finalize1();
  Output pivot = ops::Identity(dev1.WithOpName("pivot"), sw.output_true);
  Output then_1 = OpBuilder(dev1, "_TestIncrement").Input(pivot).Finalize1();
  Output then_out = OpBuilder(dev1.WithOpName("then"), "_TestIncrement")
                        .Input(then_1).Finalize1();
  OpBuilder(dev1.WithOpName("then_runs").WithControlDependencies({pivot}), "_TestCountRuns")
      .Finalize1();
  ops::Merge(dev0.WithOpName("m"), {else_out, then_out});
  const GraphDef def = ToGraphDef(root);
  auto split = NewSessionWithCpus(2);
  ASSERT_TRUE(split->Create(def).ok());
  auto single = NewSessionWithCpus(1);
  ASSERT_TRUE(single->Create(Unpinned(def)).ok());

  for (bool p : {true, false, true}) {
    const Feeds feeds = {{"x", Tensor::Scalar<int32_t>(10)}, {"pred", Tensor::Scalar<bool>(p)}};
    const int64_t runs_before = test::TestCountRunsValue();
    std::vector<Tensor> got = RunOrDie(split.get(), feeds, {"m", "m:1"}, {"then_runs"});
    EXPECT_EQ(test::TestCountRunsValue() - runs_before, p ? 1 : 0);
    std::vector<Tensor> want = RunOrDie(single.get(), feeds, {"m", "m:1"}, {"then_runs"});
    EXPECT_EQ(got[0].scalar<int32_t>()(), p ? 12 : 11) << "pred " << p;
    EXPECT_EQ(got[1].scalar<int32_t>()(), p ? 1 : 0);
    EXPECT_EQ(got[0].scalar<int32_t>()(), want[0].scalar<int32_t>()());
  }
}

// `first` runs 5 ms into the step on `first_device`; `second`, on the other
// device, has only a control edge from it. Both count their runs.
GraphDef ControlOrderGraph(const char* first_device, const char* second_device) {
  Scope root = Scope::NewRootScope();
  Scope a = root.WithDevice(first_device);
  Output c = ops::Const(a, 1);
  Output delay = OpBuilder(a, "_TestAsyncIdentity").Input(c).Attr("delay_ms", int64_t{5})
                     .Finalize1();
  Output first = OpBuilder(a.WithOpName("first").WithControlDependencies({delay}),
                           "_TestCountRuns").Finalize1();
  OpBuilder(root.WithDevice(second_device).WithOpName("second").WithControlDependencies({first}),
            "_TestCountRuns").Finalize1();
  return ToGraphDef(root);
}

TEST(MultiDeviceTest, ControlOnlyDependencyOrdersNodesAcrossDevices) {
  for (auto [from, to] : {std::pair{kCpu0, kCpu1}, std::pair{kCpu1, kCpu0}}) {
    auto session = NewSessionWithCpus(2);
    ASSERT_TRUE(session->Create(ControlOrderGraph(from, to)).ok());
    for (int i = 0; i < 10; ++i) {
      std::vector<Tensor> out = RunOrDie(session.get(), {}, {"first", "second"});
      EXPECT_EQ(out[1].scalar<int32_t>()(), out[0].scalar<int32_t>()() + 1)
          << "from " << from << " run " << i;
    }
  }
}

TEST(MultiDeviceTest, FeedsAndFetchesStayOnTheClientDevice) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  OpBuilder(root.WithDevice(kCpu1).WithOpName("y"), "_TestIncrement").Input(x).Finalize1();
  auto session = NewSessionWithCpus(2);
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  RunMetadata metadata;
  std::vector<Tensor> out =
      RunOrDie(session.get(), {{"x", Tensor::Scalar<int32_t>(4)}}, {"y", "x"}, {}, &metadata);
  EXPECT_EQ(out[0].scalar<int32_t>()(), 5);
  EXPECT_EQ(out[1].scalar<int32_t>()(), 4);
  auto ops_by_device = OpsByDevice(metadata);
  EXPECT_EQ(ops_by_device[kFullCpu0].count("_Arg"), 1u);
  EXPECT_EQ(ops_by_device[kFullCpu0].count("_Retval"), 2u);
  EXPECT_EQ(ops_by_device[kFullCpu1].count("_TestIncrement"), 1u);
}

TEST(MultiDeviceTest, AGraphOnOneDeviceHasNoTransfers) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  OpBuilder(root.WithOpName("y"), "_TestIncrement").Input(x).Finalize1();
  auto session = NewSessionWithCpus(2);
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  RunMetadata metadata;
  RunOrDie(session.get(), {{"x", Tensor::Scalar<int32_t>(4)}}, {"y"}, {}, &metadata);
  auto ops_by_device = OpsByDevice(metadata);
  EXPECT_EQ(ops_by_device.size(), 1u);
  EXPECT_EQ(ops_by_device[kFullCpu0].count("_Send"), 0u);
}

TEST(MultiDeviceTest, AnErrorInOnePartitionAbortsTheOthersBlockedRecvs) {
  // fail (CPU:0) -> inc1 (CPU:1) -> inc2 (CPU:0): when `fail` fails, both
  // partitions have a _Recv waiting for a tensor that will never be sent.
  Scope root = Scope::NewRootScope();
  Scope dev0 = root.WithDevice(kCpu0);
  Scope dev1 = root.WithDevice(kCpu1);
  Output slow = OpBuilder(dev0, "_TestAsyncIdentity").Input(ops::Const(dev0, 1))
                    .Attr("delay_ms", int64_t{20}).Finalize1();
  Output fail = OpBuilder(dev0.WithOpName("fail"), "_TestFail").Input(slow)
                    .Attr("message", std::string("boom")).Finalize1();
  Output inc1 = OpBuilder(dev1.WithOpName("inc1"), "_TestIncrement").Input(fail).Finalize1();
  OpBuilder(dev0.WithOpName("inc2"), "_TestIncrement").Input(inc1).Finalize1();
  OpBuilder(dev1.WithOpName("fine"), "_TestIncrement").Input(ops::Const(dev1, 1)).Finalize1();
  auto session = NewSessionWithCpus(2);
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  RunOptions options;
  options.timeout_in_ms = 20000;
  std::vector<Tensor> out;
  const auto start = std::chrono::steady_clock::now();
  absl::Status s = session->Run(options, {}, {"inc2"}, {}, &out, nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("'fail'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("boom"));
  // The session still runs other steps.
  std::vector<Tensor> fine = RunOrDie(session.get(), {}, {"fine"});
  EXPECT_EQ(fine[0].scalar<int32_t>()(), 2);
}

TEST(MultiDeviceTest, ATimeoutWithABlockedCrossDeviceRecvIsDeadlineExceeded) {
  Scope root = Scope::NewRootScope();
  Scope dev0 = root.WithDevice(kCpu0);
  Scope dev1 = root.WithDevice(kCpu1);
  Output blocked = OpBuilder(dev0.WithOpName("blocked"), "_TestBlockUntilCancelled")
                       .Input(ops::Const(dev0, 1)).Finalize1();
  OpBuilder(dev1.WithOpName("after"), "_TestIncrement").Input(blocked).Finalize1();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  OpBuilder(dev1.WithOpName("inc"), "_TestIncrement").Input(x).Finalize1();
  auto session = NewSessionWithCpus(2);
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  RunOptions options;
  options.timeout_in_ms = 50;
  for (int i = 0; i < 2; ++i) {
    std::vector<Tensor> out;
    absl::Status s = session->Run(options, {}, {"after"}, {}, &out, nullptr);
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
    // Still usable, across devices too.
    std::vector<Tensor> inc = RunOrDie(session.get(), {{"x", Tensor::Scalar<int32_t>(i)}}, {"inc"});
    EXPECT_EQ(inc[0].scalar<int32_t>()(), i + 1);
  }
}

TEST(MultiDeviceTest, ConflictingDevicesForAVariableAndItsUpdateAreReported) {
  Scope root = Scope::NewRootScope();
  Output w = ops::Variable(root.WithDevice(kCpu1).WithOpName("w"), TensorShape({1}), DT_FLOAT);
  ops::Assign(root.WithDevice(kCpu0).WithOpName("init"), w, Tensor::FromVector<float>({1}));
  const GraphDef def = ToGraphDef(root);
  auto strict = NewSessionWithCpus(2);
  // Create places the whole graph: the conflict is reported there.
  absl::Status s = strict->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'init'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("'w'"));
}

}  // namespace
}  // namespace minitf
