// Tests of RandomUniform and RandomStandardNormal: loose statistics on 10k
// samples, exact reproducibility with a seed, errors, shape functions.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "runtime/op_registry.h"
#include "session/session.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorEqual;
using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using ::testing::AllOf;
using ::testing::HasSubstr;

NodeDef RandomDef(const std::string& op, DataType dtype, int64_t seed, int64_t seed2 = 0) {
  return MakeNodeDef("rng", op,
                     {{"dtype", dtype}, {"T", DT_INT32}, {"seed", seed}, {"seed2", seed2}});
}

Tensor Draw(KernelRunner* runner, std::initializer_list<int32_t> shape) {
  auto out = runner->Run({Tensor::FromVector<int32_t>(shape)});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

template <typename T>
void MeanAndVariance(const Tensor& t, double* mean, double* variance) {
  auto v = t.flat<T>();
  double sum = 0, sum_sq = 0;
  for (int64_t i = 0; i < v.size(); ++i) {
    sum += v(i);
    sum_sq += static_cast<double>(v(i)) * v(i);
  }
  *mean = sum / v.size();
  *variance = sum_sq / v.size() - *mean * *mean;
}

bool SameValues(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  return std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

TEST(RandomUniformTest, ValuesLieInUnitIntervalWithUniformMoments) {
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    KernelRunner runner(RandomDef("RandomUniform", dtype, 42));
    Tensor t = Draw(&runner, {100, 100});
    ASSERT_EQ(t.shape(), TensorShape({100, 100}));
    ASSERT_EQ(t.dtype(), dtype);
    double mean = 0, variance = 0, lo = 1, hi = 0;
    auto track_range = [&](double x) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    };
    if (dtype == DT_FLOAT) {
      MeanAndVariance<float>(t, &mean, &variance);
      for (int64_t i = 0; i < t.NumElements(); ++i) track_range(t.flat<float>()(i));
    } else {
      MeanAndVariance<double>(t, &mean, &variance);
      for (int64_t i = 0; i < t.NumElements(); ++i) track_range(t.flat<double>()(i));
    }
    EXPECT_GE(lo, 0.0);
    EXPECT_LT(hi, 1.0);
    EXPECT_NEAR(mean, 0.5, 0.02);           // sd of the mean ~ 0.003
    EXPECT_NEAR(variance, 1.0 / 12, 0.01);  // 1/12 = 0.0833
  }
}

TEST(RandomStandardNormalTest, HasZeroMeanAndUnitVariance) {
  KernelRunner runner(RandomDef("RandomStandardNormal", DT_DOUBLE, 7));
  Tensor t = Draw(&runner, {10000});
  double mean = 0, variance = 0;
  MeanAndVariance<double>(t, &mean, &variance);
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(variance, 1.0, 0.1);
  int64_t within_one_sd = 0;
  for (int64_t i = 0; i < t.NumElements(); ++i) within_one_sd += std::abs(t.flat<double>()(i)) < 1;
  EXPECT_NEAR(within_one_sd / 10000.0, 0.6827, 0.03);

  KernelRunner floats(RandomDef("RandomStandardNormal", DT_FLOAT, 7));
  Tensor odd = Draw(&floats, {3, 3});  // An odd count uses half of the last pair.
  EXPECT_EQ(odd.NumElements(), 9);
  for (int64_t i = 0; i < 9; ++i) EXPECT_TRUE(std::isfinite(odd.flat<float>()(i)));
}

TEST(RandomOpsTest, SeededKernelsAreReproducibleAndAdvance) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal"}) {
    KernelRunner first(RandomDef(op, DT_FLOAT, 1234, 5));
    KernelRunner second(RandomDef(op, DT_FLOAT, 1234, 5));
    const Tensor a1 = Draw(&first, {64});
    const Tensor a2 = Draw(&first, {64});
    const Tensor b1 = Draw(&second, {64});
    const Tensor b2 = Draw(&second, {64});
    ExpectTensorEqual(a1, b1);
    ExpectTensorEqual(a2, b2);
    EXPECT_FALSE(SameValues(a1, a2)) << op << ": a second step must draw new values";

    KernelRunner other_seed2(RandomDef(op, DT_FLOAT, 1234, 6));
    EXPECT_FALSE(SameValues(Draw(&other_seed2, {64}), a1)) << op;
  }
}

TEST(RandomOpsTest, ZeroSeedsAreNondeterministic) {
  KernelRunner first(RandomDef("RandomUniform", DT_DOUBLE, 0, 0));
  KernelRunner second(RandomDef("RandomUniform", DT_DOUBLE, 0, 0));
  EXPECT_FALSE(SameValues(Draw(&first, {32}), Draw(&second, {32})));
}

TEST(RandomOpsTest, BadShapesAreErrors) {
  KernelRunner runner(
      MakeNodeDef("my_rng", "RandomUniform", {{"dtype", DT_FLOAT}, {"T", DT_INT64}}));
  auto negative = runner.Run({Tensor::FromVector<int64_t>({2, -1})});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.status().message(), AllOf(HasSubstr("my_rng"), HasSubstr("negative")));
  auto matrix = runner.Run({Tensor::FromVector<int64_t>({1, 2}, TensorShape({1, 2}))});
  ASSERT_FALSE(matrix.ok());
  EXPECT_THAT(matrix.status().message(), HasSubstr("vector"));

  KernelRunner ints(MakeNodeDef("my_rng", "RandomUniform", {{"dtype", DT_INT32}, {"T", DT_INT32}}));
  EXPECT_FALSE(ints.status().ok());
}

TEST(RandomOpsTest, StatefulWithShapeFromConstant) {
  EXPECT_TRUE(OpRegistry::Global()->LookUp("RandomUniform")->is_stateful);
  EXPECT_TRUE(OpRegistry::Global()->LookUp("RandomStandardNormal")->is_stateful);
  const Tensor shape = Tensor::FromVector<int32_t>({2, 5});
  auto shapes =
      InferShapes(RandomDef("RandomUniform", DT_FLOAT, 0), {PartialTensorShape({2})}, {&shape});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialTensorShape({2, 5}));
  EXPECT_FALSE(
      InferShapes(RandomDef("RandomUniform", DT_FLOAT, 0), {PartialTensorShape({2, 2})}).ok());
}

TEST(RandomOpsBuilderTest, SeededGraphsRepeatAcrossSessions) {
  auto run_twice = [](std::vector<Tensor>* first, std::vector<Tensor>* second) {
    Scope root = Scope::NewRootScope();
    ops::RandomUniform(root.WithOpName("u"), {2, 3}, DT_FLOAT, {.seed = 3, .seed2 = 4});
    ops::RandomStandardNormal(root.WithOpName("n"), {4}, DT_DOUBLE, {.seed = 3});
    GraphDef def;
    ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
    auto session = NewSession(SessionOptions());
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE((*session)->Create(def).ok());
    ASSERT_TRUE((*session)->Run({}, {"u", "n"}, {}, first).ok());
    ASSERT_TRUE((*session)->Run({}, {"u", "n"}, {}, second).ok());
  };
  std::vector<Tensor> a1, a2, b1, b2;
  run_twice(&a1, &a2);
  run_twice(&b1, &b2);
  ASSERT_EQ(a1.size(), 2u);
  EXPECT_EQ(a1[0].shape(), TensorShape({2, 3}));
  EXPECT_EQ(a1[1].dtype(), DT_DOUBLE);
  ExpectTensorEqual(a1[0], b1[0]);
  ExpectTensorEqual(a1[1], b1[1]);
  ExpectTensorEqual(a2[0], b2[0]);
  EXPECT_FALSE(SameValues(a1[0], a2[0]));
}

}  // namespace
}  // namespace minitf
