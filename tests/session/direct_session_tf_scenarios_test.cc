// The scenarios of TensorFlow's direct_session_test.cc that apply to minitf,
// written for minitf: signatures and the executor cache, feeds and fetches,
// placement errors at Create, state shared across signatures, deadlines,
// Close, and callables. Threaded scenarios are in
// direct_session_tf_scenarios_concurrency_test.cc.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_registry.h"
#include "runtime/op_requires.h"
#include "runtime/shape_inference.h"
#include "session/direct_session.h"
#include "tests/testlib/test_ops.h"

namespace minitf {

// An op that promises an output and never sets it (TensorFlow's "Darth").
REGISTER_OP("_TestBrokenPromise").Input("x: float").Output("y: float")
    .SetShapeFn(shape_fns::UnchangedShape);
class TestBrokenPromiseOp : public OpKernel {
 public:
  explicit TestBrokenPromiseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* /*ctx*/) override {}
};
REGISTER_KERNEL_BUILDER(Name("_TestBrokenPromise").Device(DEVICE_CPU), TestBrokenPromiseOp);

namespace {

using ::testing::HasSubstr;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

// Two CPU devices and no GPU, as TensorFlow's tests use, so a graph can
// span two partitions without device copies.
SessionOptions TwoCpus() {
  SessionOptions options;
  options.config.device_count["CPU"] = 2;
  options.config.device_count["GPU"] = 0;
  options.config.intra_op_parallelism_threads = 1;
  // These graphs are made of constants, which graph optimization would
  // compute before the step: the scenarios are about running them.
  options.config.graph_options = GraphOptions::Unoptimized();
  return options;
}

std::unique_ptr<DirectSession> MakeSession(const SessionOptions& options = TwoCpus()) {
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

std::vector<float> Values(const Tensor& t) {
  std::vector<float> v;
  for (int64_t i = 0; i < t.NumElements(); ++i) v.push_back(t.flat<float>()(i));
  return v;
}

// y = A x on CPU:0, y_neg = -y and z = Identity(y_neg) on CPU:1, with
// A = [[3, 2], [-1, 0]] and x = [1, 1]^T unless fed.
class MinusAXTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Scope root = Scope::NewRootScope();
    Output a = ops::Const(root.WithOpName("a").WithDevice(kCpu0),
                          Tensor::FromVector<float>({3, 2, -1, 0}, TensorShape({2, 2})));
    Output x = ops::Const(root.WithOpName("x").WithDevice(kCpu1),
                          Tensor::FromVector<float>({1, 1}, TensorShape({2, 1})));
    Output y = ops::MatMul(root.WithOpName("y").WithDevice(kCpu0), a, x);
    Output y_neg = ops::Neg(root.WithOpName("y_neg").WithDevice(kCpu1), y);
    ops::Identity(root.WithOpName("z").WithDevice(kCpu1), y_neg);
    def_ = ToGraphDef(root);
  }

  GraphDef def_;
};

TEST_F(MinusAXTest, FetchAndTargetOnTwoDevices) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(def_).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"y:0"}, {"y_neg"}, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (std::vector<float>{5, -1}));
}

TEST_F(MinusAXTest, CallableRunsUntilReleasedAndAnswersUnknownHandles) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(def_).ok());
  // Making, running and releasing twice: each cycle stands on its own.
  for (int cycle = 0; cycle < 2; ++cycle) {
    Session::CallableHandle handle = -1;
    ASSERT_TRUE(session->MakeCallable({.fetch = {"y:0"}, .target = {"y_neg"}}, &handle).ok());
    for (int call = 0; call < 2; ++call) {
      std::vector<Tensor> out;
      ASSERT_TRUE(session->RunCallable(handle, {}, &out, nullptr).ok());
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(Values(out[0]), (std::vector<float>{5, -1}));
    }
    absl::Status s = session->RunCallable(handle, {}, nullptr, nullptr);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.message()), HasSubstr("`fetch_tensors` must be provided"));

    ASSERT_TRUE(session->ReleaseCallable(handle).ok());
    std::vector<Tensor> out;
    s = session->RunCallable(handle, {}, &out, nullptr);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.message()),
                HasSubstr("Attempted to run callable after handle was released"));
    s = session->RunCallable(handle + 1, {}, &out, nullptr);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.message()), HasSubstr("No such callable handle"));
    EXPECT_EQ(session->ReleaseCallable(handle + 1).code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(session->RunCallable(-1, {}, &out, nullptr).code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST_F(MinusAXTest, CallableSharesTheExecutorsOfTheSameRunSignature) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(def_).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"y:0"}, {"y_neg"}, &out).ok());
  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.fetch = {"y"}, .target = {"y_neg"}}, &handle).ok());
  EXPECT_EQ(session->NumCachedExecutors(), 1);
}

TEST_F(MinusAXTest, FeedOnTheSecondDevice) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(def_).ok());
  const Tensor x = Tensor::FromVector<float>({5, 6}, TensorShape({2, 1}));
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", x}}, {"y:0"}, {}, &out).ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{27, -5}));

  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.feed = {"x"}, .fetch = {"y:0"}}, &handle).ok());
  ASSERT_TRUE(session->RunCallable(handle, {x}, &out, nullptr).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (std::vector<float>{27, -5}));
}

// Feeding an intermediate tensor cuts off what computes it: the nodes
// upstream of the feed do not run.
TEST(DirectSessionTfScenariosTest, FeedingAnIntermediateTensorPrunesItsProducers) {
  Scope root = Scope::NewRootScope();
  Output c = ops::Const(root.WithOpName("c"), Tensor::Scalar<float>(1));
  Output failing = OpBuilder(root.WithOpName("failing"), "_TestFail").Input(c).Finalize1();
  Output y = ops::Neg(root.WithOpName("y"), failing);
  ops::Identity(root.WithOpName("z"), y);
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  std::vector<Tensor> out;
  EXPECT_EQ(session->Run({}, {"z"}, {}, &out).code(), absl::StatusCode::kAborted);
  ASSERT_TRUE(session->Run({{"failing", Tensor::Scalar<float>(4)}}, {"z"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>()(), -4);
}

TEST(DirectSessionTfScenariosTest, FeedsAndFetchesInAnyOrder) {
  Scope root = Scope::NewRootScope();
  Output first = ops::Const(root.WithOpName("first"), Tensor::Scalar<float>(1));
  ops::Identity(root.WithOpName("first_identity"), first);
  Output second = ops::Const(root.WithOpName("second"), Tensor::Scalar<float>(2));
  ops::Identity(root.WithOpName("second_identity"), second);
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  const Tensor v11 = Tensor::Scalar<float>(11), v22 = Tensor::Scalar<float>(22);
  std::vector<Tensor> out;

  ASSERT_TRUE(session->Run({}, {"first_identity:0", "second_identity:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>()(), 1);
  EXPECT_EQ(out[1].scalar<float>()(), 2);
  ASSERT_TRUE(session->Run({}, {"second_identity:0", "first_identity:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>()(), 2);
  EXPECT_EQ(out[1].scalar<float>()(), 1);
  ASSERT_TRUE(session->Run({{"first", v11}, {"second", v22}},
                           {"first_identity:0", "second_identity:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>()(), 11);
  EXPECT_EQ(out[1].scalar<float>()(), 22);
  ASSERT_TRUE(session->Run({{"second", v22}, {"first", v11}},
                           {"first_identity:0", "second_identity:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>()(), 11);
  EXPECT_EQ(out[1].scalar<float>()(), 22);
  absl::Status s = session->Run({{"first", v11}, {"first", v22}},
                                {"first_identity:0", "second_identity:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'first'"));
}

TEST(DirectSessionTfScenariosTest, CallableFeedsAndFetchesInTheOrderBound) {
  Scope root = Scope::NewRootScope();
  Output first = ops::Const(root.WithOpName("first"), Tensor::Scalar<float>(1));
  ops::Identity(root.WithOpName("first_identity"), first);
  Output second = ops::Const(root.WithOpName("second"), Tensor::Scalar<float>(2));
  ops::Identity(root.WithOpName("second_identity"), second);
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  const Tensor v11 = Tensor::Scalar<float>(11), v22 = Tensor::Scalar<float>(22);
  std::vector<Tensor> out;
  Session::CallableHandle handle = -1;

  ASSERT_TRUE(session->MakeCallable({.fetch = {"second_identity:0", "first_identity:0"}},
                                    &handle).ok());
  ASSERT_TRUE(session->RunCallable(handle, {}, &out, nullptr).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].scalar<float>()(), 2);
  EXPECT_EQ(out[1].scalar<float>()(), 1);

  ASSERT_TRUE(session->MakeCallable({.feed = {"second", "first"},
                                     .fetch = {"first_identity:0", "second_identity:0"}},
                                    &handle).ok());
  ASSERT_TRUE(session->RunCallable(handle, {v22, v11}, &out, nullptr).ok());
  EXPECT_EQ(out[0].scalar<float>()(), 11);
  EXPECT_EQ(out[1].scalar<float>()(), 22);

  absl::Status s = session->MakeCallable(
      {.feed = {"first", "first:0"}, .fetch = {"first_identity:0"}}, &handle);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("first:0"));
}

TEST(DirectSessionTfScenariosTest, CallableChecksItsFeeds) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = TensorShape({2})});
  ops::Neg(root.WithOpName("y"), x);
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.feed = {"x"}, .fetch = {"y"}}, &handle).ok());
  std::vector<Tensor> out;
  absl::Status s = session->RunCallable(handle, {}, &out, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Expected 1 feed tensors, but got 0"));
  s = session->RunCallable(handle, {Tensor::FromVector<int32_t>({1, 2})}, &out, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Feed 'x' has type int32"));
  s = session->RunCallable(handle, {Tensor::FromVector<float>({1, 2, 3})}, &out, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Feed 'x' has shape [3]"));
  ASSERT_TRUE(session->RunCallable(handle, {Tensor::FromVector<float>({1, 2})}, &out, nullptr)
                  .ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{-1, -2}));
  // Names are checked when the callable is made.
  EXPECT_EQ(session->MakeCallable({.fetch = {"nope"}}, &handle).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(session->MakeCallable({.fetch = {"y:7"}}, &handle).code(),
            absl::StatusCode::kInvalidArgument);
  // A placeholder left unfed fails the call, as in Run.
  ASSERT_TRUE(session->MakeCallable({.fetch = {"y"}}, &handle).ok());
  s = session->RunCallable(handle, {}, &out, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("placeholder tensor 'x'"));
}

TEST(DirectSessionTfScenariosTest, FetchTheSameTensorTwice) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("seven"), Tensor::Scalar<int32_t>(7));
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"seven", "seven:0"}, {}, &out).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].scalar<int32_t>()(), 7);
  EXPECT_EQ(out[1].scalar<int32_t>()(), 7);

  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.fetch = {"seven", "seven", "seven"}}, &handle).ok());
  ASSERT_TRUE(session->RunCallable(handle, {}, &out, nullptr).ok());
  ASSERT_EQ(out.size(), 3u);
  for (const Tensor& t : out) EXPECT_EQ(t.scalar<int32_t>()(), 7);
}

TEST(DirectSessionTfScenariosTest, FeedAndFetchTheSameTensor) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  OpBuilder(root.WithOpName("y"), "_TestIncrement").Input(x).Finalize1();
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Tensor::Scalar<int32_t>(3)}}, {"x", "y", "x"}, {}, &out).ok());
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].scalar<int32_t>()(), 3);
  EXPECT_EQ(out[1].scalar<int32_t>()(), 4);
  EXPECT_EQ(out[2].scalar<int32_t>()(), 3);

  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.feed = {"x"}, .fetch = {"y", "x"}}, &handle).ok());
  ASSERT_TRUE(session->RunCallable(handle, {Tensor::Scalar<int32_t>(9)}, &out, nullptr).ok());
  EXPECT_EQ(out[0].scalar<int32_t>()(), 10);
  EXPECT_EQ(out[1].scalar<int32_t>()(), 9);
}

TEST(DirectSessionTfScenariosTest, TargetsOnlyNeedNoOutputs) {
  Scope root = Scope::NewRootScope();
  OpBuilder(root.WithOpName("counter"), "_TestCountRuns").Finalize1();
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  const int64_t before = test::TestCountRunsValue();
  ASSERT_TRUE(session->Run({}, {}, {"counter"}, nullptr).ok());
  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.target = {"counter"}}, &handle).ok());
  ASSERT_TRUE(session->RunCallable(handle, {}, nullptr, nullptr).ok());
  EXPECT_EQ(test::TestCountRunsValue(), before + 2);
}

TEST(DirectSessionTfScenariosTest, CreateOnceAndBeforeAnyRun) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("c"), Tensor::Scalar<float>(1));
  const GraphDef def = ToGraphDef(root);
  auto session = MakeSession();
  std::vector<Tensor> out;
  EXPECT_EQ(session->Run({}, {"c"}, {}, &out).code(), absl::StatusCode::kFailedPrecondition);
  Session::CallableHandle handle = -1;
  EXPECT_EQ(session->MakeCallable({.fetch = {"c"}}, &handle).code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(session->Create(def).ok());
  EXPECT_FALSE(session->Create(def).ok());
}

// A requested device that does not exist is refused by Create (and Extend),
// naming the node and the device; with soft placement the node goes
// elsewhere.
TEST(DirectSessionTfScenariosTest, RequestedDeviceThatDoesNotExist) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a").WithDevice(kCpu0),
                        Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  Output x = ops::Const(root.WithOpName("x").WithDevice(kCpu1),
                        Tensor::FromVector<float>({1, 1}, TensorShape({2, 1})));
  ops::MatMul(root.WithOpName("y").WithDevice("/job:localhost/replica:0/task:0/device:CPU:2"),
              a, x);
  GraphDef def = ToGraphDef(root);

  absl::Status s = MakeSession()->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'y'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("CPU:2"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(kCpu1));  // The devices there are.

  // A malformed request is refused even with soft placement.
  SessionOptions soft = TwoCpus();
  soft.config.allow_soft_placement = true;
  GraphDef malformed = def;
  malformed.node.back().device = "/device:CPU:two";
  EXPECT_EQ(MakeSession(soft)->Create(malformed).code(), absl::StatusCode::kInvalidArgument);

  auto lenient = MakeSession(soft);
  ASSERT_TRUE(lenient->Create(def).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(lenient->Run({}, {"y"}, {}, &out).ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{3, 7}));

  // Fixed, the graph runs.
  def.node.back().device = kCpu1;
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(def).ok());
  ASSERT_TRUE(session->Run({}, {"y"}, {}, &out).ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{3, 7}));

  // Extend refuses it too, and leaves the graph as it was.
  GraphDef more;
  more.node.push_back(def.node.back());
  more.node.back().name = "y2";
  more.node.back().device = "/device:GPU:0";
  s = session->Extend(more);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'y2'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("GPU:0"));
  EXPECT_EQ(session->Run({}, {"y2"}, {}, &out).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(session->Run({}, {"y"}, {}, &out).ok());
}

TEST(DirectSessionTfScenariosTest, VariableKeepsItsValueAcrossSignatures) {
  Scope root = Scope::NewRootScope();
  Output var = ops::Variable(root.WithOpName("var"), TensorShape({3}), DT_FLOAT);
  Output twenty = ops::Const(root.WithOpName("twenty"),
                             Tensor::FromVector<float>({20, 20, 20}));
  ops::Assign(root.WithOpName("init"), var, twenty);
  ops::Neg(root.WithOpName("neg"), var);
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"var:0"}, {}, &out).ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{20, 20, 20}));
  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.fetch = {"neg", "var"}}, &handle).ok());
  ASSERT_TRUE(session->RunCallable(handle, {}, &out, nullptr).ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{-20, -20, -20}));
  EXPECT_EQ(Values(out[1]), (std::vector<float>{20, 20, 20}));
}

// A stateful kernel is made once per session and device: a seeded
// RandomUniform continues one stream whichever signature fetches it.
TEST(DirectSessionTfScenariosTest, SeededRandomContinuesOneStreamAcrossSignatures) {
  Scope root = Scope::NewRootScope();
  Output r = ops::RandomUniform(root.WithOpName("r"), ops::Const(root, Tensor::FromVector<int32_t>({4})), DT_FLOAT, {.seed = 17, .seed2 = 5});
  ops::Neg(root.WithOpName("neg"), r);
  const GraphDef def = ToGraphDef(root);

  // The stream, drawn through one signature.
  auto reference = MakeSession();
  ASSERT_TRUE(reference->Create(def).ok());
  std::vector<std::vector<float>> stream;
  for (int i = 0; i < 4; ++i) {
    std::vector<Tensor> out;
    ASSERT_TRUE(reference->Run({}, {"r"}, {}, &out).ok());
    stream.push_back(Values(out[0]));
  }
  ASSERT_NE(stream[0], stream[1]);

  // The same stream, drawn through three signatures and a callable.
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(def).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"r"}, {}, &out).ok());
  EXPECT_EQ(Values(out[0]), stream[0]);
  ASSERT_TRUE(session->Run({}, {"r", "neg"}, {}, &out).ok());
  EXPECT_EQ(Values(out[0]), stream[1]);
  ASSERT_TRUE(session->Run({}, {}, {"neg"}, nullptr).ok());  // Draws stream[2].
  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.fetch = {"r"}, .target = {"neg"}}, &handle).ok());
  ASSERT_TRUE(session->RunCallable(handle, {}, &out, nullptr).ok());
  EXPECT_EQ(Values(out[0]), stream[3]);
  EXPECT_EQ(session->NumCachedExecutors(), 4);
  EXPECT_EQ(session->NumSharedKernels(), 1);  // Only the RandomUniform's.
}

TEST(DirectSessionTfScenariosTest, KernelThatSetsNoOutputIsAnInternalError) {
  Scope root = Scope::NewRootScope();
  Output c = ops::Const(root.WithOpName("c"), Tensor::Scalar<float>(1));
  OpBuilder(root.WithOpName("broken"), "_TestBrokenPromise").Input(c).Finalize1();
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"broken"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("broken"));
}

TEST_F(MinusAXTest, TraceHasOneEntryPerDevice) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(def_).ok());
  RunOptions trace;
  trace.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run(trace, {}, {"y:0"}, {"y_neg"}, &out, &metadata).ok());
  EXPECT_EQ(metadata.step_stats.dev_stats.size(), 2u);

  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.fetch = {"y:0"}, .target = {"y_neg"}, .run_options = trace},
                                    &handle).ok());
  RunMetadata callable_metadata;
  ASSERT_TRUE(session->RunCallable(handle, {}, &out, &callable_metadata).ok());
  EXPECT_EQ(callable_metadata.step_stats.dev_stats.size(), 2u);
  EXPECT_EQ(Values(out[0]), (std::vector<float>{5, -1}));
}

// A graph whose step blocks until it is cancelled: c -> op -> after.
GraphDef BlockingGraph(const std::string& op, const std::string& device = "") {
  Scope root = Scope::NewRootScope();
  Output c = ops::Const(root.WithOpName("c"), Tensor::Scalar<int32_t>(1));
  Output blocked = OpBuilder(root.WithOpName("blocked").WithDevice(device), op)
                       .Input(c)
                       .Finalize1();
  OpBuilder(root.WithOpName("after"), "_TestIncrement").Input(blocked).Finalize1();
  OpBuilder(root.WithOpName("inc"), "_TestIncrement").Input(c).Finalize1();
  return ToGraphDef(root);
}

TEST(DirectSessionTfScenariosTest, SessionDeadlineFromConfig) {
  SessionOptions options = TwoCpus();
  options.config.operation_timeout_in_ms = 50;
  auto session = MakeSession(options);
  ASSERT_TRUE(session->Create(BlockingGraph("_TestBlockUntilCancelled")).ok());
  std::vector<Tensor> out;
  EXPECT_EQ(session->Run({}, {}, {"after"}, nullptr).code(),
            absl::StatusCode::kDeadlineExceeded);
  ASSERT_TRUE(session->Run({}, {"inc"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<int32_t>()(), 2);
  ASSERT_TRUE(session->Close().ok());
}

// The blocking kernel holds its thread (the only inter-op thread, or the
// one that started its partition): the deadline still returns the call and
// cancels the step, and the next step runs.
TEST(DirectSessionTfScenariosTest, DeadlineWhenTheKernelHoldsTheOnlyInterOpThread) {
  SessionOptions options = TwoCpus();
  options.config.inter_op_parallelism_threads = 1;
  auto session = MakeSession(options);
  ASSERT_TRUE(session->Create(BlockingGraph("_TestSpinUntilCancelled")).ok());
  RunOptions bounded;
  bounded.timeout_in_ms = 50;
  std::vector<Tensor> out;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(session->Run(bounded, {}, {"after"}, {}, &out, nullptr).code(),
              absl::StatusCode::kDeadlineExceeded);
    ASSERT_TRUE(session->Run(bounded, {}, {"inc"}, {}, &out, nullptr).ok());
    EXPECT_EQ(out[0].scalar<int32_t>()(), 2);
  }
}

TEST(DirectSessionTfScenariosTest, DeadlineWhenTheBlockedPartitionIsNotTheClients) {
  SessionOptions options = TwoCpus();
  options.config.inter_op_parallelism_threads = 1;
  auto session = MakeSession(options);
  // `blocked` on CPU:1, the rest (and the client) on CPU:0: two partitions.
  ASSERT_TRUE(session->Create(BlockingGraph("_TestSpinUntilCancelled", kCpu1)).ok());
  RunOptions bounded;
  bounded.timeout_in_ms = 50;
  std::vector<Tensor> out;
  EXPECT_EQ(session->Run(bounded, {}, {"after"}, {}, &out, nullptr).code(),
            absl::StatusCode::kDeadlineExceeded);
  ASSERT_TRUE(session->Run(bounded, {}, {"inc"}, {}, &out, nullptr).ok());
}

TEST(DirectSessionTfScenariosTest, CallableDeadlineFromItsRunOptions) {
  SessionOptions options = TwoCpus();
  options.config.device_count["CPU"] = 1;
  auto session = MakeSession(options);
  ASSERT_TRUE(session->Create(BlockingGraph("_TestSpinUntilCancelled")).ok());
  CallableOptions callable{.fetch = {"after"}};
  callable.run_options.timeout_in_ms = 50;
  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable(callable, &handle).ok());
  std::vector<Tensor> out;
  EXPECT_EQ(session->RunCallable(handle, {}, &out, nullptr).code(),
            absl::StatusCode::kDeadlineExceeded);
  ASSERT_TRUE(session->Run({}, {"inc"}, {}, &out).ok());
}

TEST(DirectSessionTfScenariosTest, CloseEndsEveryKindOfCallAndFreesTheExecutors) {
  Scope root = Scope::NewRootScope();
  Output var = ops::Variable(root.WithOpName("var"), TensorShape({}), DT_FLOAT);
  Output value = ops::Const(root.WithOpName("value"), Tensor::Scalar<float>(1.5f));
  ops::Assign(root.WithOpName("assign"), var, value);
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(ToGraphDef(root)).ok());
  ASSERT_TRUE(session->Run({}, {}, {"assign"}, nullptr).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"var"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>()(), 1.5f);
  Session::CallableHandle handle = -1;
  ASSERT_TRUE(session->MakeCallable({.target = {"assign"}}, &handle).ok());
  EXPECT_EQ(session->NumCachedExecutors(), 2);

  ASSERT_TRUE(session->Close().ok());
  EXPECT_EQ(session->NumCachedExecutors(), 0);
  absl::Status s = session->Run({}, {}, {"assign"}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Session has been closed."));
  s = session->RunCallable(handle, {}, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Session has been closed."));
  EXPECT_EQ(session->MakeCallable({.target = {"assign"}}, &handle).code(),
            absl::StatusCode::kCancelled);
  EXPECT_TRUE(session->ReleaseCallable(handle).ok());
  EXPECT_TRUE(session->Close().ok());  // Closing again is harmless.
}

}  // namespace
}  // namespace minitf
