// Tests of the ref-variable ops tf.compat.v1 training graphs use beyond
// Variable/Assign: VariableV2, AssignSub, ScatterAdd, ApplyMomentum and
// ApplyAdam.
// Kernels run with reference inputs (a tensor and its mutex); a session
// trains a VariableV2 with ApplyAdam. Values are computed by hand from
// TensorFlow's formulas.
#include <memory>
#include <string>
#include <utility>
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

// ---- VariableV2 ----

TEST(VariableV2Test, IsVariableUnderTensorFlowsName) {
  const OpDef* def = OpRegistry::Global()->LookUp("VariableV2");
  ASSERT_NE(def, nullptr);
  EXPECT_TRUE(def->is_stateful);
  KernelRunner runner(MakeNodeDef("w", "VariableV2", {{"dtype", DT_FLOAT},
                                                      {"shape", TensorShape({2})},
                                                      {"shared_name", "weights"}}));
  ASSERT_TRUE(runner.Run({}).ok());
  EXPECT_TRUE(runner.device()->resource_manager()->Lookup<Var>("", "weights").ok());

  auto shape = InferShapes(
      MakeNodeDef("w", "VariableV2", {{"dtype", DT_FLOAT}, {"shape", TensorShape({2, 3})}}), {});
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ((*shape)[0], PartialTensorShape({2, 3}));
}

TEST(VariableV2Test, DtypeClashIsInvalidArgument) {
  KernelRunner runner(
      MakeNodeDef("w2", "VariableV2", {{"dtype", DT_INT64}, {"shape", TensorShape()}}));
  ASSERT_TRUE(
      runner.device()
          ->resource_manager()
          ->LookupOrCreate<Var>("", "w2", [] { return std::make_unique<Var>(DT_FLOAT); })
          .ok());
  auto out = runner.Run({});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), AllOf(HasSubstr("w2"), HasSubstr("int64")));
}

// ---- AssignSub ----

TEST(AssignSubTest, SubtractsInPlace) {
  for (bool use_locking : {false, true}) {
    KernelRunner runner(
        MakeNodeDef("sub", "AssignSub", {{"T", DT_INT64}, {"use_locking", use_locking}}));
    RefSlot ref;
    ref.tensor = Tensor::FromVector<int64_t>({10, 20, 30});
    const Tensor reader = ref.tensor;
    Tensor delta = Tensor::FromVector<int64_t>({1, 2, 40});
    auto out = runner.RunWithValues({ref.value(), Value(&delta)});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual(reader, Tensor::FromVector<int64_t>({9, 18, -10}));
    ExpectTensorEqual((*out)[0], Tensor::FromVector<int64_t>({9, 18, -10}));
  }
}

TEST(AssignSubTest, UninitializedAndMismatchedAreErrors) {
  NodeDef def = MakeNodeDef("my_sub", "AssignSub", {{"T", DT_FLOAT}});
  def.input = {"w", "delta"};
  KernelRunner runner(def);
  RefSlot ref;
  Tensor delta = Tensor::FromVector<float>({1});
  auto uninit = runner.RunWithValues({ref.value(), Value(&delta)});
  ASSERT_FALSE(uninit.ok());
  EXPECT_EQ(uninit.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(uninit.status().message(),
              AllOf(HasSubstr("Attempting to use uninitialized value w"), HasSubstr("my_sub")));
  ref.tensor = Tensor::FromVector<float>({1, 2});
  auto mismatch = runner.RunWithValues({ref.value(), Value(&delta)});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(mismatch.status().message(), AllOf(HasSubstr("[2]"), HasSubstr("[1]")));
}

// ---- ScatterAdd ----

// TensorFlow's scatter_ops_test: a row named twice gets both updates, a
// scalar update is added to every row named, either index type works.
TEST(ScatterAddTest, AddsRowsInPlaceRepeatsAccumulate) {
  for (bool use_locking : {false, true}) {
    KernelRunner runner(MakeNodeDef(
        "scatter", "ScatterAdd",
        {{"T", DT_FLOAT}, {"Tindices", DT_INT32}, {"use_locking", use_locking}}));
    RefSlot ref;
    ref.tensor = Tensor::FromVector<float>({0, 0, 1, 1, 2, 2}, TensorShape({3, 2}));
    const Tensor reader = ref.tensor;
    Tensor rows = Tensor::FromVector<int32_t>({2, 0, 2});
    Tensor updates = Tensor::FromVector<float>({10, 20, 30, 40, 50, 60}, TensorShape({3, 2}));
    auto out = runner.RunWithValues({ref.value(), Value(&rows), Value(&updates)});
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor want = Tensor::FromVector<float>({30, 40, 1, 1, 62, 82}, TensorShape({3, 2}));
    ExpectTensorEqual(reader, want);
    ExpectTensorEqual((*out)[0], want);
  }
  KernelRunner runner(
      MakeNodeDef("scatter", "ScatterAdd", {{"T", DT_INT64}, {"Tindices", DT_INT64}}));
  RefSlot ref;
  ref.tensor = Tensor::FromVector<int64_t>({1, 2, 3, 4});
  Tensor rows = Tensor::FromVector<int64_t>({3, 1});
  Tensor scalar = Tensor::Scalar<int64_t>(100);
  auto out = runner.RunWithValues({ref.value(), Value(&rows), Value(&scalar)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual(ref.tensor, Tensor::FromVector<int64_t>({1, 102, 3, 104}));
}

// An embedding table's update, as BERT's Adam makes it: rows wide enough
// that the columns are split over the pool's threads, a row named many
// times. Each element gets its additions in the order of the indices, so
// the table is the sequential loop's to the bit.
TEST(ScatterAddTest, WideRowsSplitOverThreadsAddInIndexOrder) {
  constexpr int64_t kRows = 50, kCols = 3000, kUpdates = 400;
  std::vector<float> table(kRows * kCols), values(kUpdates * kCols);
  std::vector<int32_t> indices(kUpdates);
  for (int64_t i = 0; i < kRows * kCols; ++i) table[i] = 0.001f * static_cast<float>(i % 977);
  for (int64_t i = 0; i < kUpdates * kCols; ++i) values[i] = 1.0f / static_cast<float>(1 + i % 131);
  for (int64_t i = 0; i < kUpdates; ++i) indices[i] = static_cast<int32_t>((i * 7) % 13);
  std::vector<float> want = table;
  for (int64_t i = 0; i < kUpdates; ++i) {
    for (int64_t k = 0; k < kCols; ++k) want[indices[i] * kCols + k] += values[i * kCols + k];
  }
  KernelRunner runner(
      MakeNodeDef("scatter", "ScatterAdd", {{"T", DT_FLOAT}, {"Tindices", DT_INT32}}),
      /*intra_op_threads=*/4);
  RefSlot ref;
  ref.tensor = Tensor::FromVector<float>(table, TensorShape({kRows, kCols}));
  Tensor rows = Tensor::FromVector<int32_t>(indices, TensorShape({kUpdates}));
  Tensor updates = Tensor::FromVector<float>(values, TensorShape({kUpdates, kCols}));
  auto out = runner.RunWithValues({ref.value(), Value(&rows), Value(&updates)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual(ref.tensor, Tensor::FromVector<float>(want, TensorShape({kRows, kCols})));
}

TEST(ScatterAddTest, BadIndexOrShapeIsInvalidArgumentAndChangesNothing) {
  NodeDef def = MakeNodeDef("emb_update", "ScatterAdd", {{"T", DT_FLOAT}, {"Tindices", DT_INT32}});
  def.input = {"emb", "ids", "grads"};
  KernelRunner runner(def);
  RefSlot ref;
  ref.tensor = Tensor::FromVector<float>({1, 2, 3}, TensorShape({3, 1}));
  const Tensor before = Tensor::FromVector<float>({1, 2, 3}, TensorShape({3, 1}));
  Tensor updates = Tensor::FromVector<float>({1, 1}, TensorShape({2, 1}));
  for (const auto& [ids, text] :
       std::vector<std::pair<std::vector<int32_t>, std::string>>{
           {{0, 3}, "indices[1] = 3 is not in [0, 3)"}, {{-1, 0}, "indices[0] = -1 is not in [0, 3)"}}) {
    Tensor rows = Tensor::FromVector<int32_t>(ids, TensorShape({2}));
    auto out = runner.RunWithValues({ref.value(), Value(&rows), Value(&updates)});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), AllOf(HasSubstr("emb_update"), HasSubstr(text)));
    ExpectTensorEqual(ref.tensor, before);
  }
  Tensor rows = Tensor::FromVector<int32_t>({0, 1, 2});
  auto mismatch = runner.RunWithValues({ref.value(), Value(&rows), Value(&updates)});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(mismatch.status().message(),
              HasSubstr("Must have updates.shape = indices.shape + params.shape[1:]"));
  RefSlot uninitialized;
  auto uninit = runner.RunWithValues({uninitialized.value(), Value(&rows), Value(&updates)});
  EXPECT_EQ(uninit.status().code(), absl::StatusCode::kFailedPrecondition) << uninit.status();
  // The shape function checks the same rule before anything runs.
  auto shapes = InferShapes(def, {PartialTensorShape({3, 4}), PartialTensorShape({2}),
                                  PartialTensorShape({2, 5})});
  EXPECT_EQ(shapes.status().code(), absl::StatusCode::kInvalidArgument) << shapes.status();
  auto ok = InferShapes(def, {PartialTensorShape({3, 4}), PartialTensorShape({2}),
                              PartialTensorShape({-1, 4})});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)[0], PartialTensorShape({3, 4}));
}

// ---- ApplyMomentum ----

TEST(ApplyMomentumTest, TwoStepsAndNesterov) {
  for (bool use_locking : {false, true}) {
    KernelRunner runner(MakeNodeDef("momentum", "ApplyMomentum",
                                    {{"T", DT_DOUBLE}, {"use_locking", use_locking}}));
    RefSlot var, accum;
    var.tensor = Tensor::FromVector<double>({1, 2});
    accum.tensor = Tensor::FromVector<double>({0.1, 0.2});
    Tensor lr = Tensor::Scalar<double>(0.5);
    Tensor grad = Tensor::FromVector<double>({1, -1});
    Tensor momentum = Tensor::Scalar<double>(0.9);
    std::vector<TensorValue> in = {var.value(), accum.value(), Value(&lr), Value(&grad),
                                   Value(&momentum)};
    // accum = 0.9 * [0.1, 0.2] + [1, -1] = [1.09, -0.82]; var -= 0.5 * accum.
    auto out = runner.RunWithValues(in);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear(accum.tensor, Tensor::FromVector<double>({1.09, -0.82}));
    ExpectTensorNear(var.tensor, Tensor::FromVector<double>({0.455, 2.41}));
    ExpectTensorNear((*out)[0], var.tensor);
    // accum = [1.981, -1.738]; var = [0.455 - 0.9905, 2.41 + 0.869].
    ASSERT_TRUE(runner.RunWithValues(in).ok());
    ExpectTensorNear(var.tensor, Tensor::FromVector<double>({-0.5355, 3.279}));
  }

  KernelRunner nesterov(MakeNodeDef("nesterov", "ApplyMomentum",
                                    {{"T", DT_FLOAT}, {"use_nesterov", true}}));
  RefSlot var, accum;
  var.tensor = Tensor::FromVector<float>({1, 2});
  accum.tensor = Tensor::FromVector<float>({0.1f, 0.2f});
  Tensor lr = Tensor::Scalar<float>(0.5f);
  Tensor grad = Tensor::FromVector<float>({1, -1});
  Tensor momentum = Tensor::Scalar<float>(0.9f);
  // var -= 0.5 * grad + 0.45 * accum, accum = [1.09, -0.82].
  ASSERT_TRUE(nesterov
                  .RunWithValues({var.value(), accum.value(), Value(&lr), Value(&grad),
                                  Value(&momentum)})
                  .ok());
  ExpectTensorNear(var.tensor, Tensor::FromVector<float>({0.0095f, 2.869f}));
}

TEST(ApplyMomentumTest, ErrorsNameTheNodeAndInput) {
  NodeDef def = MakeNodeDef("my_momentum", "ApplyMomentum", {{"T", DT_FLOAT}});
  def.input = {"w", "w/Momentum", "lr", "grad", "momentum"};
  KernelRunner runner(def);
  RefSlot var, accum;
  var.tensor = Tensor::FromVector<float>({1, 2});
  Tensor lr = Tensor::Scalar<float>(0.5f);
  Tensor grad = Tensor::FromVector<float>({1, -1});
  Tensor momentum = Tensor::Scalar<float>(0.9f);
  auto uninit = runner.RunWithValues(
      {var.value(), accum.value(), Value(&lr), Value(&grad), Value(&momentum)});
  ASSERT_FALSE(uninit.ok());
  EXPECT_EQ(uninit.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(uninit.status().message(), AllOf(HasSubstr("my_momentum"),
                                               HasSubstr("uninitialized value w/Momentum")));

  accum.tensor = Tensor::FromVector<float>({0, 0, 0});
  auto shapes = runner.RunWithValues(
      {var.value(), accum.value(), Value(&lr), Value(&grad), Value(&momentum)});
  ASSERT_FALSE(shapes.ok());
  EXPECT_EQ(shapes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(shapes.status().message(),
              AllOf(HasSubstr("var and accum do not have the same shape"), HasSubstr("[3]")));

  accum.tensor = Tensor::FromVector<float>({0, 0});
  Tensor vector_lr = Tensor::FromVector<float>({0.5f});
  auto not_scalar = runner.RunWithValues(
      {var.value(), accum.value(), Value(&vector_lr), Value(&grad), Value(&momentum)});
  ASSERT_FALSE(not_scalar.ok());
  EXPECT_EQ(not_scalar.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(not_scalar.status().message(), HasSubstr("lr is not a scalar: [1]"));
  ExpectTensorEqual(var.tensor, Tensor::FromVector<float>({1, 2}));

  auto shape_fn = InferShapes(def, {PartialTensorShape({2}), PartialTensorShape({3}),
                                    PartialTensorShape(TensorShape()), PartialTensorShape({2}),
                                    PartialTensorShape(TensorShape())});
  ASSERT_FALSE(shape_fn.ok());
  EXPECT_THAT(shape_fn.status().message(), HasSubstr("my_momentum"));
}

// ---- ApplyAdam ----

// Adam's inputs after var, m and v: the scalars, then grad.
struct AdamScalars {
  Tensor beta1_power, beta2_power, lr, beta1, beta2, epsilon;
};

AdamScalars StepScalars(float beta1_power, float beta2_power) {
  return {Tensor::Scalar<float>(beta1_power), Tensor::Scalar<float>(beta2_power),
          Tensor::Scalar<float>(0.1f),        Tensor::Scalar<float>(0.9f),
          Tensor::Scalar<float>(0.999f),      Tensor::Scalar<float>(1e-8f)};
}

absl::StatusOr<std::vector<Tensor>> RunAdam(KernelRunner* runner, RefSlot* var, RefSlot* m,
                                            RefSlot* v, AdamScalars* s, Tensor* grad) {
  return runner->RunWithValues({var->value(), m->value(), v->value(), Value(&s->beta1_power),
                                Value(&s->beta2_power), Value(&s->lr), Value(&s->beta1),
                                Value(&s->beta2), Value(&s->epsilon), Value(grad)});
}

TEST(ApplyAdamTest, TwoStepsOfAdam) {
  KernelRunner runner(MakeNodeDef("adam", "ApplyAdam", {{"T", DT_FLOAT}}));
  RefSlot var, m, v;
  var.tensor = Tensor::FromVector<float>({1, 2});
  m.tensor = Tensor::FromVector<float>({0, 0});
  v.tensor = Tensor::FromVector<float>({0, 0});
  Tensor grad = Tensor::FromVector<float>({0.1f, -0.2f});
  // lr_t = 0.1 sqrt(1 - 0.999) / (1 - 0.9); m = 0.1 g; v = 0.001 g^2; the
  // step lr_t m / sqrt(v) is 0.1 per element (epsilon aside).
  AdamScalars step1 = StepScalars(0.9f, 0.999f);
  auto out = RunAdam(&runner, &var, &m, &v, &step1, &grad);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorNear(m.tensor, Tensor::FromVector<float>({0.01f, -0.02f}));
  ExpectTensorNear(v.tensor, Tensor::FromVector<float>({1e-5f, 4e-5f}), 1e-9, 1e-5);
  ExpectTensorNear(var.tensor, Tensor::FromVector<float>({0.9f, 2.1f}));
  ExpectTensorNear((*out)[0], var.tensor);
  // m = [0.019, -0.038], v = [1.999e-5, 7.996e-5], lr_t = 0.1 sqrt(0.001999)
  // / 0.19: the step is 0.1 * (0.019 / 0.19) * sqrt(0.001999 / 1.999e-5) = 0.1.
  AdamScalars step2 = StepScalars(0.81f, 0.998001f);
  ASSERT_TRUE(RunAdam(&runner, &var, &m, &v, &step2, &grad).ok());
  ExpectTensorNear(m.tensor, Tensor::FromVector<float>({0.019f, -0.038f}));
  ExpectTensorNear(v.tensor, Tensor::FromVector<float>({1.999e-5f, 7.996e-5f}), 1e-9, 1e-5);
  ExpectTensorNear(var.tensor, Tensor::FromVector<float>({0.8f, 2.2f}));
}

TEST(ApplyAdamTest, NesterovStep) {
  KernelRunner runner(
      MakeNodeDef("adam", "ApplyAdam", {{"T", DT_FLOAT}, {"use_nesterov", true}}));
  RefSlot var, m, v;
  var.tensor = Tensor::FromVector<float>({1, 2});
  m.tensor = Tensor::FromVector<float>({0, 0});
  v.tensor = Tensor::FromVector<float>({0, 0});
  Tensor grad = Tensor::FromVector<float>({0.1f, -0.2f});
  // (0.1 g + 0.9 m) = [0.019, -0.038]; / sqrt(v) * lr_t = [0.19, -0.19].
  AdamScalars step = StepScalars(0.9f, 0.999f);
  ASSERT_TRUE(RunAdam(&runner, &var, &m, &v, &step, &grad).ok());
  ExpectTensorNear(var.tensor, Tensor::FromVector<float>({0.81f, 2.19f}));
}

TEST(ApplyAdamTest, ErrorsNameTheNode) {
  NodeDef def = MakeNodeDef("my_adam", "ApplyAdam", {{"T", DT_FLOAT}, {"use_locking", true}});
  KernelRunner runner(def);
  RefSlot var, m, v;
  var.tensor = Tensor::FromVector<float>({1, 2});
  m.tensor = Tensor::FromVector<float>({0, 0});
  Tensor grad = Tensor::FromVector<float>({0.1f, -0.2f});
  AdamScalars step = StepScalars(0.9f, 0.999f);
  auto uninit = RunAdam(&runner, &var, &m, &v, &step, &grad);
  ASSERT_FALSE(uninit.ok());
  EXPECT_EQ(uninit.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(uninit.status().message(),
              AllOf(HasSubstr("my_adam"), HasSubstr("uninitialized")));

  v.tensor = Tensor::FromVector<float>({0, 0});
  Tensor long_grad = Tensor::FromVector<float>({1, 2, 3});
  auto bad_grad = RunAdam(&runner, &var, &m, &v, &step, &long_grad);
  ASSERT_FALSE(bad_grad.ok());
  EXPECT_EQ(bad_grad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_grad.status().message(),
              AllOf(HasSubstr("my_adam"), HasSubstr("var and grad do not have the same shape")));
  step.epsilon = Tensor::FromVector<float>({1e-8f, 1e-8f});
  auto bad_eps = RunAdam(&runner, &var, &m, &v, &step, &grad);
  ASSERT_FALSE(bad_eps.ok());
  EXPECT_THAT(bad_eps.status().message(), HasSubstr("epsilon is not a scalar"));
  ExpectTensorEqual(var.tensor, Tensor::FromVector<float>({1, 2}));
}

// ---- In a session: a tf.compat.v1-style Adam step on a VariableV2 ----

TEST(TrainingOpsSessionTest, AdamTrainsAVariableV2AcrossSteps) {
  Scope root = Scope::NewRootScope();
  auto w = ops::VariableV2(root.WithOpName("w"), {2}, DT_FLOAT);
  auto m = ops::VariableV2(root.WithOpName("w/Adam"), {2}, DT_FLOAT);
  auto v = ops::VariableV2(root.WithOpName("w/Adam_1"), {2}, DT_FLOAT);
  auto b1p = ops::VariableV2(root.WithOpName("beta1_power"), PartialTensorShape(TensorShape()),
                             DT_FLOAT);
  auto b2p = ops::VariableV2(root.WithOpName("beta2_power"), PartialTensorShape(TensorShape()),
                             DT_FLOAT);
  auto i1 = ops::Assign(root.WithOpName("init_w"), w, Tensor::FromVector<float>({1, 2}));
  auto i2 = ops::Assign(root.WithOpName("init_m"), m, Tensor::FromVector<float>({0, 0}));
  auto i3 = ops::Assign(root.WithOpName("init_v"), v, Tensor::FromVector<float>({0, 0}));
  auto i4 = ops::Assign(root.WithOpName("init_b1p"), b1p, 0.9f);
  auto i5 = ops::Assign(root.WithOpName("init_b2p"), b2p, 0.999f);
  auto grad = ops::Placeholder(root.WithOpName("grad"), DT_FLOAT);
  auto step = ops::ApplyAdam(root.WithOpName("adam"), w, m, v,
                             {b1p, b2p, 0.1f, 0.9f, 0.999f, 1e-8f, grad});
  // As tf.compat.v1.train.AdamOptimizer: the powers advance after the step.
  Scope after = root.WithControlDependencies({step});
  ops::Assign(after.WithOpName("update_b1p"), b1p, ops::Mul(after, b1p, 0.9f));
  ops::Assign(after.WithOpName("update_b2p"), b2p, ops::Mul(after, b2p, 0.999f));
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  auto session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(def).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(
      (*session)->Run({}, {}, {"init_w", "init_m", "init_v", "init_b1p", "init_b2p"}, &out).ok());
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"grad", Tensor::FromVector<float>({0.1f, -0.2f})}};
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE((*session)->Run(feeds, {}, {"update_b1p", "update_b2p"}, &out).ok());
  }
  ASSERT_TRUE((*session)->Run({}, {"w", "beta1_power"}, {}, &out).ok());
  ExpectTensorNear(out[0], Tensor::FromVector<float>({0.8f, 2.2f}));
  ExpectTensorNear(out[1], Tensor::Scalar<float>(0.729f));
}

}  // namespace
}  // namespace minitf
