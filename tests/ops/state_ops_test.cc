// Tests of the state ops: Variable, Assign, AssignAdd, ApplyGradientDescent.
// Kernels run with reference inputs (a tensor and its mutex, as a Variable
// hands them out); sessions check that values persist across steps.
#include <memory>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/kernels/var.h"
#include "ops/standard_ops.h"
#include "runtime/op_registry.h"
#include "session/session.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorEqual;
using test::ExpectTensorNear;
using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using ::testing::AllOf;
using ::testing::HasSubstr;

// A variable's storage as an update kernel sees it: a tensor and its mutex.
struct RefSlot {
  Mutex mu;
  Tensor tensor;  // Guarded by mu while a kernel runs.

  TensorValue value() { return TensorValue{&tensor, &mu}; }
};

TensorValue Value(Tensor* t) { return TensorValue{t, nullptr}; }

// ---- Variable ----

TEST(VariableTest, OutputsAReferenceToAPersistentVar) {
  KernelRunner runner(
      MakeNodeDef("w", "Variable", {{"dtype", DT_FLOAT}, {"shape", TensorShape({2})}}));
  ASSERT_TRUE(runner.status().ok()) << runner.status();
  EXPECT_TRUE(OpRegistry::Global()->LookUp("Variable")->is_stateful);
  auto out = runner.Run({});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE((*out)[0].IsInitialized());

  // The Var lives in the device's ResourceMgr under the node's name.
  auto var = runner.device()->resource_manager()->Lookup<Var>("", "w");
  ASSERT_TRUE(var.ok()) << var.status();
  {
    MutexLock lock(&(*var)->mu);
    EXPECT_FALSE((*var)->initialized());
    (*var)->tensor = Tensor::FromVector<float>({1, 2});
  }
  auto again = runner.Run({});
  ASSERT_TRUE(again.ok());
  ExpectTensorEqual((*again)[0], Tensor::FromVector<float>({1, 2}));
  EXPECT_THAT((*var)->DebugString(), HasSubstr("[2]"));
}

TEST(VariableTest, SharedNameAndContainerPickTheVar) {
  KernelRunner runner(MakeNodeDef("v", "Variable",
                                  {{"dtype", DT_INT32},
                                   {"shape", TensorShape()},
                                   {"container", "c"},
                                   {"shared_name", "counter"}}));
  ASSERT_TRUE(runner.Run({}).ok());
  EXPECT_TRUE(runner.device()->resource_manager()->Lookup<Var>("c", "counter").ok());
  EXPECT_FALSE(runner.device()->resource_manager()->Lookup<Var>("", "v").ok());
}

TEST(VariableTest, DtypeClashWithAnExistingVarIsAnError) {
  KernelRunner runner(
      MakeNodeDef("my_var", "Variable", {{"dtype", DT_FLOAT}, {"shape", TensorShape()}}));
  ASSERT_TRUE(
      runner.device()
          ->resource_manager()
          ->LookupOrCreate<Var>("", "my_var", [] { return std::make_unique<Var>(DT_DOUBLE); })
          .ok());
  auto out = runner.Run({});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), AllOf(HasSubstr("my_var"), HasSubstr("double")));
}

// ---- Assign ----

TEST(AssignTest, InitializesWithACopyThenWritesInPlace) {
  KernelRunner runner(MakeNodeDef("assign", "Assign", {{"T", DT_FLOAT}}));
  RefSlot ref;
  Tensor init = Tensor::FromVector<float>({1, 2, 3});
  auto out = runner.RunWithValues({ref.value(), Value(&init)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual(ref.tensor, init);
  EXPECT_FALSE(ref.tensor.SharesBufferWith(init));
  ExpectTensorEqual((*out)[0], init);  // The output is the reference.

  const Tensor reader = ref.tensor;  // Another holder of the variable's buffer.
  Tensor next = Tensor::FromVector<float>({4, 5, 6});
  ASSERT_TRUE(runner.RunWithValues({ref.value(), Value(&next)}).ok());
  EXPECT_TRUE(ref.tensor.SharesBufferWith(reader));
  ExpectTensorEqual(reader, next);
}

TEST(AssignTest, ShapeChangeNeedsValidateShapeFalse) {
  RefSlot ref;
  ref.tensor = Tensor::FromVector<double>({1, 2});
  Tensor value = Tensor::FromVector<double>({1, 2, 3, 4}, TensorShape({2, 2}));

  KernelRunner strict(MakeNodeDef("my_assign", "Assign", {{"T", DT_DOUBLE}}));
  auto out = strict.RunWithValues({ref.value(), Value(&value)});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              AllOf(HasSubstr("my_assign"), HasSubstr("[2]"), HasSubstr("[2,2]")));
  ExpectTensorEqual(ref.tensor, Tensor::FromVector<double>({1, 2}));

  KernelRunner loose(MakeNodeDef("a", "Assign", {{"T", DT_DOUBLE}, {"validate_shape", false}}));
  const Tensor old = ref.tensor;
  ASSERT_TRUE(loose.RunWithValues({ref.value(), Value(&value)}).ok());
  ExpectTensorEqual(ref.tensor, value);
  EXPECT_FALSE(ref.tensor.SharesBufferWith(old));
}

TEST(AssignTest, WithoutLockingStillWritesThroughTheReference) {
  KernelRunner runner(MakeNodeDef("a", "Assign", {{"T", DT_INT64}, {"use_locking", false}}));
  RefSlot ref;
  ref.tensor = Tensor::FromVector<int64_t>({0, 0});
  const Tensor reader = ref.tensor;
  Tensor value = Tensor::FromVector<int64_t>({8, 9});
  ASSERT_TRUE(runner.RunWithValues({ref.value(), Value(&value)}).ok());
  ExpectTensorEqual(reader, value);
}

TEST(AssignTest, ShapeFunctionChecksShapes) {
  NodeDef def = MakeNodeDef("my_assign", "Assign", {{"T", DT_FLOAT}});
  auto ok = InferShapes(def, {PartialTensorShape({2, -1}), PartialTensorShape({-1, 3})});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)[0], PartialTensorShape({2, 3}));
  auto bad = InferShapes(def, {PartialTensorShape({2}), PartialTensorShape({3})});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              AllOf(HasSubstr("my_assign"), HasSubstr("[2]"), HasSubstr("[3]")));
  def.attr["validate_shape"] = false;
  auto loose = InferShapes(def, {PartialTensorShape({2}), PartialTensorShape({3})});
  ASSERT_TRUE(loose.ok());
  EXPECT_EQ((*loose)[0], PartialTensorShape({3}));
}

// ---- AssignAdd ----

TEST(AssignAddTest, AddsInPlace) {
  for (bool use_locking : {false, true}) {
    KernelRunner runner(
        MakeNodeDef("add", "AssignAdd", {{"T", DT_INT32}, {"use_locking", use_locking}}));
    RefSlot ref;
    ref.tensor = Tensor::FromVector<int32_t>({1, 2, 3});
    const Tensor reader = ref.tensor;
    Tensor delta = Tensor::FromVector<int32_t>({10, 20, 30});
    auto out = runner.RunWithValues({ref.value(), Value(&delta)});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual(reader, Tensor::FromVector<int32_t>({11, 22, 33}));
    ExpectTensorEqual((*out)[0], Tensor::FromVector<int32_t>({11, 22, 33}));
  }
}

TEST(AssignAddTest, UninitializedAndMismatchedAreErrors) {
  NodeDef def = MakeNodeDef("my_add", "AssignAdd", {{"T", DT_FLOAT}});
  def.input = {"w", "delta"};
  KernelRunner runner(def);
  RefSlot ref;
  Tensor delta = Tensor::FromVector<float>({1});
  auto uninit = runner.RunWithValues({ref.value(), Value(&delta)});
  ASSERT_FALSE(uninit.ok());
  EXPECT_EQ(uninit.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(uninit.status().message(),
              AllOf(HasSubstr("Attempting to use uninitialized value w"), HasSubstr("my_add")));

  ref.tensor = Tensor::FromVector<float>({1, 2});
  auto mismatch = runner.RunWithValues({ref.value(), Value(&delta)});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(mismatch.status().message(),
              AllOf(HasSubstr("my_add"), HasSubstr("[2]"), HasSubstr("[1]")));
}

// ---- ApplyGradientDescent ----

TEST(ApplyGradientDescentTest, SubtractsScaledDelta) {
  KernelRunner runner(MakeNodeDef("sgd", "ApplyGradientDescent", {{"T", DT_DOUBLE}}));
  RefSlot var;
  var.tensor = Tensor::FromVector<double>({1, 2, 3, 4}, TensorShape({2, 2}));
  Tensor alpha = Tensor::Scalar<double>(0.5);
  Tensor delta = Tensor::FromVector<double>({2, 4, -2, 0}, TensorShape({2, 2}));
  auto out = runner.RunWithValues({var.value(), Value(&alpha), Value(&delta)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorNear(var.tensor, Tensor::FromVector<double>({0, 0, 4, 4}, TensorShape({2, 2})));
  ExpectTensorNear((*out)[0], var.tensor);
}

TEST(ApplyGradientDescentTest, ErrorsNameTheNode) {
  NodeDef def =
      MakeNodeDef("my_sgd", "ApplyGradientDescent", {{"T", DT_FLOAT}, {"use_locking", true}});
  def.input = {"weights:0", "lr", "grad"};
  KernelRunner runner(def);
  RefSlot var;
  Tensor alpha = Tensor::Scalar<float>(0.1f);
  Tensor delta = Tensor::FromVector<float>({1, 1});
  auto uninit = runner.RunWithValues({var.value(), Value(&alpha), Value(&delta)});
  ASSERT_FALSE(uninit.ok());
  EXPECT_EQ(uninit.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      uninit.status().message(),
      AllOf(HasSubstr("Attempting to use uninitialized value weights"), HasSubstr("my_sgd")));

  var.tensor = Tensor::FromVector<float>({1, 1});
  Tensor vector_alpha = Tensor::FromVector<float>({0.1f});
  auto bad_alpha = runner.RunWithValues({var.value(), Value(&vector_alpha), Value(&delta)});
  ASSERT_FALSE(bad_alpha.ok());
  EXPECT_THAT(bad_alpha.status().message(), AllOf(HasSubstr("my_sgd"), HasSubstr("scalar")));
  Tensor long_delta = Tensor::FromVector<float>({1, 1, 1});
  EXPECT_FALSE(runner.RunWithValues({var.value(), Value(&alpha), Value(&long_delta)}).ok());
  ExpectTensorEqual(var.tensor, Tensor::FromVector<float>({1, 1}));
}

// ---- In a session ----

class StateOpsSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Scope root = Scope::NewRootScope();
    auto w = ops::Variable(root.WithOpName("w"), {2}, DT_FLOAT);
    ops::Assign(root.WithOpName("init"), w, ops::Fill(root, {2}, 1.0f));
    ops::AssignAdd(root.WithOpName("add"), w, ops::OnesLike(root, w), {.use_locking = true});
    auto grad = ops::Placeholder(root.WithOpName("grad"), DT_FLOAT);
    ops::ApplyGradientDescent(root.WithOpName("sgd"), w, 0.5f, grad);
    ops::Identity(root.WithOpName("read"), w);
    ASSERT_TRUE(root.ToGraphDef(&graph_).ok()) << root.status();
    auto session = NewSession(SessionOptions());
    ASSERT_TRUE(session.ok());
    session_ = *std::move(session);
    ASSERT_TRUE(session_->Create(graph_).ok());
  }

  // The variable's value now, copied out (the fetched tensor shares its buffer).
  std::vector<float> Read() {
    std::vector<Tensor> out;
    absl::Status s = session_->Run({}, {"read"}, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return {};
    auto v = out[0].flat<float>();
    return std::vector<float>(v.data(), v.data() + v.size());
  }

  GraphDef graph_;
  std::unique_ptr<Session> session_;
};

TEST_F(StateOpsSessionTest, ReadingBeforeInitIsFailedPrecondition) {
  std::vector<Tensor> out;
  absl::Status s = session_->Run({}, {"read"}, {}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("uninitialized value w"));
  s = session_->Run({}, {}, {"add"}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(StateOpsSessionTest, ValuePersistsAcrossStepsAndExecutors) {
  std::vector<Tensor> out;
  ASSERT_TRUE(session_->Run({}, {}, {"init"}, &out).ok());
  EXPECT_EQ(Read(), (std::vector<float>{1, 1}));
  ASSERT_TRUE(session_->Run({}, {}, {"add"}, &out).ok());
  ASSERT_TRUE(session_->Run({}, {}, {"add"}, &out).ok());
  EXPECT_EQ(Read(), (std::vector<float>{3, 3}));
  // A different signature builds a different executor over the same Var.
  ASSERT_TRUE(
      session_->Run({{"grad", Tensor::FromVector<float>({2, -2})}}, {"sgd"}, {}, &out).ok());
  EXPECT_EQ(Read(), (std::vector<float>{2, 4}));
  ASSERT_TRUE(session_->Run({}, {"w"}, {}, &out).ok());
  ExpectTensorEqual(out[0], Tensor::FromVector<float>({2, 4}));
}

TEST_F(StateOpsSessionTest, ConcurrentLockedAddsAreNotLost) {
  std::vector<Tensor> out;
  ASSERT_TRUE(session_->Run({}, {}, {"init"}, &out).ok());
  constexpr int kThreads = 4, kSteps = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this] {
      std::vector<Tensor> unused;
      for (int i = 0; i < kSteps; ++i) EXPECT_TRUE(session_->Run({}, {}, {"add"}, &unused).ok());
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(Read(), (std::vector<float>{1 + kThreads * kSteps, 1 + kThreads * kSteps}));
}

TEST(StateOpsBuilderTest, AssignShapeMismatchFailsAtGraphConstruction) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), {2, 2}, DT_FLOAT);
  ops::Assign(root.WithOpName("bad_init"), w, ops::Fill(root, {3}, 0.0f));
  EXPECT_TRUE(IsRefType(w.type()));
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  auto session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok());
  absl::Status s = (*session)->Create(def);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("bad_init"), HasSubstr("[2,2]")));
}

}  // namespace
}  // namespace minitf
