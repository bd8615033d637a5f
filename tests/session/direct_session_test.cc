#include "session/direct_session.h"

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_registry.h"
#include "runtime/op_requires.h"
#include "runtime/shape_inference.h"
#include "tests/testlib/kernel_runner.h"
#include "tests/testlib/test_ops.h"

namespace minitf {

// An op with a float kernel only, to test "no kernel for this dtype".
REGISTER_OP("_TestFloatOnly").Input("x: T").Output("y: T").Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape);
class TestFloatOnlyOp : public OpKernel {
 public:
  explicit TestFloatOnlyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
};
REGISTER_KERNEL_BUILDER(Name("_TestFloatOnly").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        TestFloatOnlyOp);

namespace {

using ::testing::HasSubstr;

std::unique_ptr<Session> MakeSession(const SessionOptions& options = SessionOptions()) {
  auto session = NewSession(options);
  EXPECT_TRUE(session.ok()) << session.status();
  return *std::move(session);
}

NodeDef Node(const std::string& name, const std::string& op, std::vector<std::string> inputs,
             AttrValueMap attrs = {}) {
  NodeDef n;
  n.name = name;
  n.op = op;
  n.input = std::move(inputs);
  n.attr = std::move(attrs);
  return n;
}

NodeDef IntConst(const std::string& name, int32_t v) {
  return Node(name, "Const", {}, {{"dtype", DT_INT32}, {"value", Tensor::Scalar<int32_t>(v)}});
}

GraphDef IncrementGraph() {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32, {.shape = TensorShape()});
  OpBuilder(root.WithOpName("y"), "_TestIncrement").Input(x).Finalize1();
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

TEST(DirectSessionTest, RunFeedsAndFetches) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(IncrementGraph()).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Tensor::Scalar<int32_t>(41)}}, {"y:0", "x"}, {}, &out).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].scalar<int32_t>()(), 42);
  EXPECT_EQ(out[1].scalar<int32_t>()(), 41);  // A fed tensor is fetched as fed.
}

TEST(DirectSessionTest, ExecutorsAreCachedPerSignatureInAnyOrder) {
  auto session_or = DirectSession::New(SessionOptions());
  ASSERT_TRUE(session_or.ok());
  DirectSession& session = **session_or;
  ASSERT_TRUE(session.Create(IncrementGraph()).ok());
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(session.Run({{"x:0", Tensor::Scalar<int32_t>(i)}}, {"y", "x"}, {}, &out).ok());
    EXPECT_EQ(out[0].scalar<int32_t>()(), i + 1);
  }
  ASSERT_TRUE(session.Run({{"x", Tensor::Scalar<int32_t>(1)}}, {"x", "y"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<int32_t>()(), 1);
  EXPECT_EQ(out[1].scalar<int32_t>()(), 2);
  EXPECT_EQ(session.NumCachedExecutors(), 1);
  ASSERT_TRUE(session.Run({{"x", Tensor::Scalar<int32_t>(1)}}, {"y"}, {}, &out).ok());
  EXPECT_EQ(session.NumCachedExecutors(), 2);
}

TEST(DirectSessionTest, PruningSkipsNodesTheFetchesDoNotNeed) {
  GraphDef def;
  def.node = {IntConst("c", 1), Node("fail", "_TestFail", {"c"}, {{"T", DT_INT32}}),
              Node("inc", "_TestIncrement", {"c"})};
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(def).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"inc"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<int32_t>()(), 2);
  // Asking for the failing node as a target runs it.
  absl::Status s = session->Run({}, {}, {"fail"}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(std::string(s.message()), HasSubstr("fail"));
}

TEST(DirectSessionTest, TargetsRunForTheirEffectOnly) {
  GraphDef def;
  def.node = {Node("counter", "_TestCountRuns", {})};
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(def).ok());
  const int64_t before = test::TestCountRunsValue();
  ASSERT_TRUE(session->Run({}, {}, {"counter"}, nullptr).ok());
  ASSERT_TRUE(session->Run({}, {}, {"counter"}, nullptr).ok());
  EXPECT_EQ(test::TestCountRunsValue(), before + 2);
}

TEST(DirectSessionTest, StepIdsIncreaseAndTraceHasEveryNode) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(IncrementGraph()).ok());
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE(session
                  ->Run(options, {{"x", Tensor::Scalar<int32_t>(1)}}, {"y"}, {}, &out,
                        &metadata)
                  .ok());
  ASSERT_EQ(metadata.step_stats.dev_stats.size(), 1u);
  std::vector<std::string> names;
  for (const auto& n : metadata.step_stats.dev_stats[0].node_stats) names.push_back(n.op);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("_Arg", "_TestIncrement", "_Retval"));
  // Every node records when it became ready, no later than it started.
  for (const NodeExecStats& n : metadata.step_stats.dev_stats[0].node_stats) {
    EXPECT_GT(n.scheduled_micros, 0) << n.node_name;
    EXPECT_LE(n.scheduled_micros, n.all_start_micros) << n.node_name;
  }
}

// --- Bad input: each gets a clear error naming the culprit. ---

TEST(DirectSessionBadInputTest, UnknownOp) {
  GraphDef def;
  def.node = {Node("mystery", "NoSuchOp", {})};
  absl::Status s = MakeSession()->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.message()), HasSubstr("mystery"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("NoSuchOp"));
}

TEST(DirectSessionBadInputTest, NoKernelForDtype) {
  // Create places the whole graph, as TensorFlow's does: a node no device
  // has a kernel for fails there, before any Run.
  GraphDef def;
  def.node = {IntConst("c", 1), Node("only_float", "_TestFloatOnly", {"c"}, {{"T", DT_INT32}})};
  auto session = MakeSession();
  absl::Status s = session->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.message()), HasSubstr("only_float"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("T=int32"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("T in [float]"));
}

TEST(DirectSessionBadInputTest, WrongNumberOfInputs) {
  GraphDef def;
  def.node = {IntConst("a", 1), IntConst("b", 2), Node("inc", "_TestIncrement", {"a", "b"})};
  absl::Status s = MakeSession()->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("inc"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("expected 1 inputs, got 2"));
}

TEST(DirectSessionBadInputTest, InputFromMissingNodeOrPort) {
  GraphDef missing_node;
  missing_node.node = {Node("inc", "_TestIncrement", {"ghost"})};
  absl::Status s = MakeSession()->Create(missing_node);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("unknown node 'ghost'"));

  GraphDef missing_port;
  missing_port.node = {IntConst("a", 1), Node("inc", "_TestIncrement", {"a:3"})};
  s = MakeSession()->Create(missing_port);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("output 3 of node 'a'"));
}

TEST(DirectSessionBadInputTest, InputOfWrongType) {
  GraphDef def;
  def.node = {Node("f", "Const", {}, {{"dtype", DT_FLOAT}, {"value", Tensor::Scalar<float>(1)}}),
              Node("inc", "_TestIncrement", {"f"})};
  absl::Status s = MakeSession()->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("has type float, expected int32"));
}

TEST(DirectSessionBadInputTest, DuplicateNodeNames) {
  GraphDef def;
  def.node = {IntConst("same", 1), IntConst("same", 2)};
  absl::Status s = MakeSession()->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'same' is not unique"));
}

TEST(DirectSessionBadInputTest, Cycle) {
  GraphDef def;
  def.node = {IntConst("c", 0), Node("a", "_TestIncrement", {"b"}),
              Node("b", "_TestIncrement", {"a"}), Node("d", "_TestIncrement", {"c"})};
  absl::Status s = MakeSession()->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("cycle"));
  EXPECT_TRUE(absl::StrContains(s.message(), "a -> b -> a") ||
              absl::StrContains(s.message(), "b -> a -> b"))
      << s;
}

TEST(DirectSessionBadInputTest, FeedOfMissingTensor) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(IncrementGraph()).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"nope", Tensor::Scalar<int32_t>(1)}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Feed 'nope:0'"));
  // A node that exists, with no such output: InvalidArgument, as in TensorFlow.
  s = session->Run({{"x:1", Tensor::Scalar<int32_t>(1)}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("x:1"));
}

TEST(DirectSessionBadInputTest, FeedOfWrongDtypeOrShape) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(IncrementGraph()).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x", Tensor::Scalar<float>(1)}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Feed 'x' has type float"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("expects int32"));
  s = session->Run({{"x", Tensor::FromVector<int32_t>({1, 2})}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("has shape [2]"));
  // The session is still usable.
  EXPECT_TRUE(session->Run({{"x", Tensor::Scalar<int32_t>(1)}}, {"y"}, {}, &out).ok());
}

TEST(DirectSessionBadInputTest, DuplicateFeed) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(IncrementGraph()).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{"x", Tensor::Scalar<int32_t>(1)}, {"x:0", Tensor::Scalar<int32_t>(2)}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("given twice"));
}

TEST(DirectSessionBadInputTest, FetchOfMissingTensorOrTarget) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(IncrementGraph()).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x", Tensor::Scalar<int32_t>(1)}}, {"z"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Fetch 'z:0'"));
  s = session->Run({{"x", Tensor::Scalar<int32_t>(1)}}, {}, {"nothing"}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Target node 'nothing'"));
  // An output port past the node's outputs names the tensor.
  s = session->Run({{"x", Tensor::Scalar<int32_t>(1)}}, {"y:3"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Fetch 'y:3'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("has 1 outputs"));
}

TEST(DirectSessionBadInputTest, UnfedPlaceholder) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(IncrementGraph()).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("must feed a value for placeholder tensor 'x'"));
}

TEST(DirectSessionBadInputTest, RunAfterCloseAndBeforeCreate) {
  auto session = MakeSession();
  std::vector<Tensor> out;
  EXPECT_EQ(session->Run({}, {"y"}, {}, &out).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(session->Create(IncrementGraph()).ok());
  ASSERT_TRUE(session->Close().ok());
  // After Close, TensorFlow answers CANCELLED, to Run as to Extend.
  absl::Status s = session->Run({{"x", Tensor::Scalar<int32_t>(1)}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(std::string(s.message()), HasSubstr("closed"));
  EXPECT_EQ(session->Extend(GraphDef()).code(), absl::StatusCode::kCancelled);
}

TEST(DirectSessionBadInputTest, UnknownRequestedDevice) {
  GraphDef def;
  def.node = {IntConst("c", 1)};
  def.node[0].device = "/device:GPU:3";
  // Refused at Create, before any Run, as TensorFlow's placer does.
  auto session = MakeSession();
  absl::Status s = session->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'c'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("GPU:3"));
  std::vector<Tensor> out;
  SessionOptions soft;
  soft.config.allow_soft_placement = true;
  auto lenient = MakeSession(soft);
  ASSERT_TRUE(lenient->Create(def).ok());
  ASSERT_TRUE(lenient->Run({}, {"c"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<int32_t>()(), 1);
}

TEST(DirectSessionTest, TimeoutReturnsDeadlineExceededAndSessionStaysUsable) {
  GraphDef def;
  def.node = {IntConst("c", 1),
              Node("blocked", "_TestBlockUntilCancelled", {"c"}, {{"T", DT_INT32}}),
              Node("inc", "_TestIncrement", {"c"})};
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(def).ok());
  RunOptions options;
  options.timeout_in_ms = 50;
  std::vector<Tensor> out;
  absl::Status s = session->Run(options, {}, {"blocked"}, {}, &out, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  ASSERT_TRUE(session->Run(options, {}, {"inc"}, {}, &out, nullptr).ok());
  EXPECT_EQ(out[0].scalar<int32_t>()(), 2);
}

// The step's first expensive kernel runs on whichever thread starts the
// executor; the deadline must hold even when that kernel never returns on
// its own.
TEST(DirectSessionTest, TimeoutHoldsWhenTheFirstKernelHoldsItsThread) {
  GraphDef def;
  def.node = {IntConst("c", 1),
              Node("spin", "_TestSpinUntilCancelled", {"c"}, {{"T", DT_INT32}}),
              Node("inc", "_TestIncrement", {"c"})};
  // One device, so the step has one partition, started on the calling thread.
  SessionOptions cpu_only;
  cpu_only.config.device_count["GPU"] = 0;
  auto session = MakeSession(cpu_only);
  ASSERT_TRUE(session->Create(def).ok());
  RunOptions options;
  options.timeout_in_ms = 50;
  std::vector<Tensor> out;
  absl::Status s = session->Run(options, {}, {"spin"}, {}, &out, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  ASSERT_TRUE(session->Run(options, {}, {"inc"}, {}, &out, nullptr).ok());
  EXPECT_EQ(out[0].scalar<int32_t>()(), 2);
}

TEST(DirectSessionTest, ExtendAddsNodes) {
  auto session = MakeSession();
  ASSERT_TRUE(session->Create(IncrementGraph()).ok());
  GraphDef more;
  more.node = {Node("z", "_TestIncrement", {"y"})};
  ASSERT_TRUE(session->Extend(more).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Tensor::Scalar<int32_t>(0)}}, {"z"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<int32_t>()(), 2);
  // A clashing name is refused and leaves the graph as it was.
  EXPECT_FALSE(session->Extend(more).ok());
  ASSERT_TRUE(session->Run({{"x", Tensor::Scalar<int32_t>(0)}}, {"z"}, {}, &out).ok());
}

}  // namespace
}  // namespace minitf
