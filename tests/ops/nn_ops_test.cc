// Tests of the nn ops: MatMul, BiasAdd, L2Loss, Relu, ReluGrad, Sigmoid, Tanh,
// Softmax and SparseSoftmaxCrossEntropyWithLogits: kernels against
// hand-computed values, shape functions, errors, and the graph builders.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
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

Tensor Matrix(std::initializer_list<float> values, int64_t rows, int64_t cols) {
  return Tensor::FromVector<float>(values, TensorShape({rows, cols}));
}

// Runs a one-output kernel; fails the test on error.
Tensor RunOne(NodeDef def, const std::vector<Tensor>& inputs) {
  KernelRunner runner(std::move(def));
  auto out = runner.Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

// ---- MatMul ----

TEST(MatMulTest, MultipliesMatrices) {
  // [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154]
  Tensor product = RunOne(MakeNodeDef("mm", "MatMul", {{"T", DT_FLOAT}}),
                          {Matrix({1, 2, 3, 4, 5, 6}, 2, 3), Matrix({7, 8, 9, 10, 11, 12}, 3, 2)});
  ExpectTensorNear(product, Matrix({58, 64, 139, 154}, 2, 2));
}

TEST(MatMulTest, TransposesEachOperand) {
  const Tensor a = Tensor::FromVector<double>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  const Tensor b = Tensor::FromVector<double>({1, 0, 1, 2, 1, 0}, TensorShape({2, 3}));
  // a^T = [1 3 5; 2 4 6]; b^T = [1 2; 0 1; 1 0]; a^T b^T = [6 5; 8 8].
  Tensor both = RunOne(
      MakeNodeDef("mm", "MatMul", {{"T", DT_DOUBLE}, {"transpose_a", true}, {"transpose_b", true}}),
      {a, b});
  ExpectTensorNear(both, Tensor::FromVector<double>({6, 5, 8, 8}, TensorShape({2, 2})));
  // a b = [1 2; 3 4; 5 6] [1 0 1; 2 1 0] = [5 2 1; 11 4 3; 17 6 5].
  Tensor plain = RunOne(MakeNodeDef("mm", "MatMul", {{"T", DT_DOUBLE}}), {a, b});
  ExpectTensorNear(plain,
                   Tensor::FromVector<double>({5, 2, 1, 11, 4, 3, 17, 6, 5}, TensorShape({3, 3})));
  // x x^T for x = [1 2; 3 4] is [5 11; 11 25].
  const Tensor x = Matrix({1, 2, 3, 4}, 2, 2);
  Tensor gram =
      RunOne(MakeNodeDef("mm", "MatMul", {{"T", DT_FLOAT}, {"transpose_b", true}}), {x, x});
  ExpectTensorNear(gram, Matrix({5, 11, 11, 25}, 2, 2));
}

TEST(MatMulTest, IntegersAndEmptyInnerDimension) {
  Tensor ints = RunOne(MakeNodeDef("mm", "MatMul", {{"T", DT_INT32}}),
                       {Tensor::FromVector<int32_t>({1, 2}, TensorShape({1, 2})),
                        Tensor::FromVector<int32_t>({3, 4}, TensorShape({2, 1}))});
  ExpectTensorEqual(ints, Tensor::FromVector<int32_t>({11}, TensorShape({1, 1})));
  Tensor zeros =
      RunOne(MakeNodeDef("mm", "MatMul", {{"T", DT_FLOAT}}),
             {Tensor(DT_FLOAT, TensorShape({2, 0})), Tensor(DT_FLOAT, TensorShape({0, 2}))});
  ExpectTensorEqual(zeros, Matrix({0, 0, 0, 0}, 2, 2));
}

TEST(MatMulTest, InnerDimensionMismatchNamesNodeAndShapes) {
  KernelRunner runner(MakeNodeDef("my_matmul", "MatMul", {{"T", DT_FLOAT}}));
  auto out =
      runner.Run({Tensor(DT_FLOAT, TensorShape({2, 3})), Tensor(DT_FLOAT, TensorShape({4, 5}))});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              AllOf(HasSubstr("my_matmul"), HasSubstr("[2,3]"), HasSubstr("[4,5]")));

  auto shapes = InferShapes(MakeNodeDef("my_matmul", "MatMul", {{"T", DT_FLOAT}}),
                            {PartialTensorShape({2, 3}), PartialTensorShape({4, -1})});
  ASSERT_FALSE(shapes.ok());
  EXPECT_EQ(shapes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(shapes.status().message(),
              AllOf(HasSubstr("my_matmul"), HasSubstr("[2,3]"), HasSubstr("[4,?]")));
}

TEST(MatMulTest, ShapeFunctionHonoursTransposes) {
  auto shapes = InferShapes(MakeNodeDef("mm", "MatMul", {{"T", DT_FLOAT}, {"transpose_a", true}}),
                            {PartialTensorShape({3, -1}), PartialTensorShape({3, 7})});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialTensorShape({-1, 7}));
  auto unknown = InferShapes(MakeNodeDef("mm", "MatMul", {{"T", DT_FLOAT}}),
                             {PartialTensorShape(), PartialTensorShape({3, 7})});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ((*unknown)[0], PartialTensorShape({-1, 7}));
}

// ---- BiasAdd ----

TEST(BiasAddTest, AddsBiasToEveryRow) {
  Tensor out = RunOne(MakeNodeDef("b", "BiasAdd", {{"T", DT_FLOAT}}),
                      {Matrix({1, 2, 3, 4, 5, 6}, 2, 3), Tensor::FromVector<float>({10, 20, 30})});
  ExpectTensorNear(out, Matrix({11, 22, 33, 14, 25, 36}, 2, 3));
}

TEST(BiasAddTest, BroadcastsOverAllLeadingDimensions) {
  const Tensor value = Tensor::FromVector<double>({0, 1, 2, 3, 4, 5, 6, 7}, TensorShape({2, 2, 2}));
  Tensor out = RunOne(MakeNodeDef("b", "BiasAdd", {{"T", DT_DOUBLE}}),
                      {value, Tensor::FromVector<double>({100, -1})});
  ExpectTensorNear(
      out, Tensor::FromVector<double>({100, 0, 102, 2, 104, 4, 106, 6}, TensorShape({2, 2, 2})));
  auto shapes = InferShapes(MakeNodeDef("b", "BiasAdd", {{"T", DT_DOUBLE}}),
                            {PartialTensorShape({-1, 4, -1}), PartialTensorShape({5})});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialTensorShape({-1, 4, 5}));
}

TEST(BiasAddTest, RejectsBiasOfTheWrongLength) {
  KernelRunner runner(MakeNodeDef("my_bias", "BiasAdd", {{"T", DT_FLOAT}}));
  auto out =
      runner.Run({Tensor(DT_FLOAT, TensorShape({2, 3})), Tensor(DT_FLOAT, TensorShape({4}))});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              AllOf(HasSubstr("my_bias"), HasSubstr("[2,3]"), HasSubstr("[4]")));
  auto shapes = InferShapes(MakeNodeDef("my_bias", "BiasAdd", {{"T", DT_FLOAT}}),
                            {PartialTensorShape({2, 3}), PartialTensorShape({4})});
  EXPECT_FALSE(shapes.ok());
  auto rank1 = InferShapes(MakeNodeDef("my_bias", "BiasAdd", {{"T", DT_FLOAT}}),
                           {PartialTensorShape({3}), PartialTensorShape({3})});
  EXPECT_FALSE(rank1.ok());
}

// `t` (float, channels last) with its last dimension moved to dimension 1,
// as TensorFlow's bias tests make their NCHW inputs (NHWC -> NCHW, and
// NDHWC -> NCDHW).
Tensor ChannelsToDimensionOne(const Tensor& t) {
  const int rank = t.dims();
  const int64_t channels = t.dim_size(rank - 1);
  int64_t spatial = 1;
  std::vector<int64_t> dims = {t.dim_size(0), channels};
  for (int d = 1; d < rank - 1; ++d) {
    spatial *= t.dim_size(d);
    dims.push_back(t.dim_size(d));
  }
  Tensor out(DT_FLOAT, TensorShape(dims));
  const float* in = t.data<float>();
  float* o = out.data<float>();
  for (int64_t n = 0; n < t.dim_size(0); ++n) {
    for (int64_t p = 0; p < spatial; ++p) {
      for (int64_t c = 0; c < channels; ++c) {
        o[(n * channels + c) * spatial + p] = in[(n * spatial + p) * channels + c];
      }
    }
  }
  return out;
}

Tensor Counting(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = 0.25f * i - 3;
  return t;
}

// TensorFlow's bias_op_test: every value's NCHW (and NCDHW) result is its
// NHWC result with the channels moved the same way.
TEST(BiasAddTest, NchwAddsAlongDimensionOne) {
  const Tensor bias = Tensor::FromVector<float>({10, -20, 30, -40});
  for (const TensorShape& shape :
       {TensorShape({2, 3, 5, 4}), TensorShape({2, 2, 3, 2, 4}), TensorShape({3, 2, 4})}) {
    SCOPED_TRACE(shape.DebugString());
    const Tensor nhwc = Counting(shape);
    const Tensor expected = RunOne(MakeNodeDef("b", "BiasAdd", {{"T", DT_FLOAT}}), {nhwc, bias});
    const Tensor nchw =
        RunOne(MakeNodeDef("b", "BiasAdd", {{"T", DT_FLOAT}, {"data_format", "NCHW"}}),
               {ChannelsToDimensionOne(nhwc), bias});
    ExpectTensorEqual(nchw, ChannelsToDimensionOne(expected));
  }
  // By hand: [1, 2, 1, 2] NCHW plus [1, 100].
  const Tensor small = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({1, 2, 1, 2}));
  ExpectTensorEqual(RunOne(MakeNodeDef("b", "BiasAdd", {{"T", DT_FLOAT}, {"data_format", "NCHW"}}),
                           {small, Tensor::FromVector<float>({1, 100})}),
                    Tensor::FromVector<float>({2, 3, 103, 104}, TensorShape({1, 2, 1, 2})));
}

TEST(BiasAddTest, NchwShapesAndErrors) {
  const NodeDef nchw =
      MakeNodeDef("nchw_bias", "BiasAdd", {{"T", DT_FLOAT}, {"data_format", "NCHW"}});
  auto shapes = InferShapes(nchw, {PartialTensorShape({-1, -1, 4, 4}), PartialTensorShape({3})});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialTensorShape({-1, 3, 4, 4}));
  // The channels are dimension 1, not the last one.
  auto mismatch = InferShapes(nchw, {PartialTensorShape({2, 3, 4, 4}), PartialTensorShape({4})});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().message(), AllOf(HasSubstr("nchw_bias"), HasSubstr("NCHW")));
  // TensorFlow's shape function wants rank 3 or more under NCHW.
  EXPECT_FALSE(InferShapes(nchw, {PartialTensorShape({2, 3}), PartialTensorShape({3})}).ok());
  KernelRunner runner(nchw);
  auto out =
      runner.Run({Tensor(DT_FLOAT, TensorShape({2, 3, 4})), Tensor(DT_FLOAT, TensorShape({4}))});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              AllOf(HasSubstr("nchw_bias"), HasSubstr("dimension 1 under NCHW"), HasSubstr("[4]")));
  // Another format fails when the kernel is built, naming it.
  KernelRunner ncdhw(MakeNodeDef("odd", "BiasAdd", {{"T", DT_FLOAT}, {"data_format", "NCDHW"}}));
  auto odd =
      ncdhw.Run({Tensor(DT_FLOAT, TensorShape({2, 3, 4})), Tensor(DT_FLOAT, TensorShape({3}))});
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(odd.status().message(), AllOf(HasSubstr("odd"), HasSubstr("'NCDHW'")));
}

// ---- Activations ----

// ---- L2Loss (TensorFlow's nn_test.py L2LossTest) ----

TEST(L2LossTest, HalfTheSumOfSquaresInEitherFloatType) {
  // (1 + 0 + 9 + 4) / 2 = 7.
  ExpectTensorNear(RunOne(MakeNodeDef("l2", "L2Loss", {{"T", DT_FLOAT}}),
                          {Matrix({1, 0, 3, 2}, 2, 2)}),
                   Tensor::FromVector<float>({7.0f}, TensorShape({})));
  ExpectTensorNear(RunOne(MakeNodeDef("l2", "L2Loss", {{"T", DT_DOUBLE}}),
                          {Tensor::FromVector<double>({1, 0, 3, 2}, TensorShape({2, 2}))}),
                   Tensor::FromVector<double>({7.0}, TensorShape({})));
  // An empty tensor's loss is 0; the output is a scalar whatever the input.
  ExpectTensorEqual(RunOne(MakeNodeDef("l2", "L2Loss", {{"T", DT_FLOAT}}),
                           {Tensor(DT_FLOAT, TensorShape({0, 3}))}),
                    Tensor::FromVector<float>({0.0f}, TensorShape({})));
  auto shapes = InferShapes(MakeNodeDef("l2", "L2Loss", {{"T", DT_FLOAT}}), {{4, 5, 6}});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0].DebugString(), "[]");
}

// 20,000,000 values of 0.5 square to 0.25 each: a float added one at a time
// stops near 2^22 = 4194304 (0.25 is under half its spacing); the loss is
// exactly 2.5e6.
TEST(L2LossTest, ASumOfManySquaresKeepsItsPrecision) {
  Tensor t(DT_FLOAT, TensorShape({20000000}));
  t.flat<float>().setConstant(0.5f);
  const Tensor loss = RunOne(MakeNodeDef("l2", "L2Loss", {{"T", DT_FLOAT}}), {t});
  EXPECT_EQ(loss.scalar<float>()(), 2.5e6f);
}

TEST(ActivationTest, ReluClampsNegatives) {
  ExpectTensorNear(RunOne(MakeNodeDef("r", "Relu", {{"T", DT_FLOAT}}),
                          {Tensor::FromVector<float>({-2, -0.5f, 0, 0.5f, 3})}),
                   Tensor::FromVector<float>({0, 0, 0, 0.5f, 3}));
  ExpectTensorEqual(
      RunOne(MakeNodeDef("r", "Relu", {{"T", DT_INT64}}), {Tensor::FromVector<int64_t>({-7, 7})}),
      Tensor::FromVector<int64_t>({0, 7}));
}

TEST(ActivationTest, ReluGradPassesGradientWherePositive) {
  ExpectTensorNear(RunOne(MakeNodeDef("rg", "ReluGrad", {{"T", DT_DOUBLE}}),
                          {Tensor::FromVector<double>({1, 2, 3, 4}),
                           Tensor::FromVector<double>({-1, 0, 0.5, 9})}),
                   Tensor::FromVector<double>({0, 0, 3, 4}));
}

TEST(ActivationTest, ReluGradRejectsMismatchedShapes) {
  KernelRunner runner(MakeNodeDef("my_relu_grad", "ReluGrad", {{"T", DT_FLOAT}}));
  auto out = runner.Run({Tensor::FromVector<float>({1, 2}), Tensor::FromVector<float>({1, 2, 3})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              AllOf(HasSubstr("my_relu_grad"), HasSubstr("[2]"), HasSubstr("[3]")));
  EXPECT_FALSE(InferShapes(MakeNodeDef("g", "ReluGrad", {{"T", DT_FLOAT}}),
                           {PartialTensorShape({2}), PartialTensorShape({3})})
                   .ok());
}

TEST(ActivationTest, SigmoidAndTanh) {
  // sigmoid(x) = 1 / (1 + e^-x); tanh(1) = 0.76159416.
  ExpectTensorNear(RunOne(MakeNodeDef("s", "Sigmoid", {{"T", DT_FLOAT}}),
                          {Tensor::FromVector<float>({0, 1, -1, 20})}),
                   Tensor::FromVector<float>({0.5f, 0.7310586f, 0.2689414f, 1.0f}));
  ExpectTensorNear(
      RunOne(MakeNodeDef("t", "Tanh", {{"T", DT_DOUBLE}}),
             {Tensor::FromVector<double>({0, 1, -1, 0.5})}),
      Tensor::FromVector<double>({0, 0.7615941559557649, -0.7615941559557649, 0.46211715726000974}),
      1e-12, 1e-12);
}

TEST(ActivationTest, SigmoidRejectsIntegers) {
  KernelRunner runner(MakeNodeDef("my_sigmoid", "Sigmoid", {{"T", DT_INT32}}));
  ASSERT_FALSE(runner.status().ok());
  EXPECT_EQ(runner.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(runner.status().message(), HasSubstr("my_sigmoid"));
}

// ---- Softmax ----

TEST(SoftmaxTest, NormalizesTheLastDimension) {
  // softmax(1, 2, 3) = (0.09003057, 0.24472847, 0.66524096).
  Tensor out =
      RunOne(MakeNodeDef("sm", "Softmax", {{"T", DT_FLOAT}}), {Matrix({1, 2, 3, 5, 5, 5}, 2, 3)});
  ExpectTensorNear(
      out, Matrix({0.09003057f, 0.24472847f, 0.66524096f, 1 / 3.0f, 1 / 3.0f, 1 / 3.0f}, 2, 3));
  Tensor vec = RunOne(MakeNodeDef("sm", "Softmax", {{"T", DT_DOUBLE}}),
                      {Tensor::FromVector<double>({0, std::log(3.0)})});
  ExpectTensorNear(vec, Tensor::FromVector<double>({0.25, 0.75}), 1e-12, 1e-12);
}

TEST(SoftmaxTest, IsStableForLargeLogits) {
  Tensor out = RunOne(MakeNodeDef("sm", "Softmax", {{"T", DT_FLOAT}}),
                      {Matrix({1000, 1000, -1000, 1000}, 2, 2)});
  ExpectTensorNear(out, Matrix({0.5f, 0.5f, 0, 1}, 2, 2));
}

// Many rows, split over the runner's two threads, against the definition in
// double: rows of random logits over [-20, 20], and a row of -infinity but
// one (those classes get 0, or -infinity from LogSoftmax, as in
// TensorFlow). Softmax's rows sum to 1.
TEST(SoftmaxTest, ManyRowsMatchTheDefinitionInDouble) {
  const int64_t rows = 211, classes = 37;
  std::vector<float> logits(rows * classes);
  uint32_t state = 12345;
  for (float& v : logits) {
    state = state * 1664525u + 1013904223u;
    v = -20.0f + 40.0f * static_cast<float>(state >> 8) / static_cast<float>(1 << 24);
  }
  for (int64_t j = 1; j < classes; ++j) logits[5 * classes + j] = -INFINITY;
  const Tensor input =
      Tensor::FromVector<float>(std::vector<float>(logits), TensorShape({rows, classes}));
  const Tensor softmax = RunOne(MakeNodeDef("sm", "Softmax", {{"T", DT_FLOAT}}), {input});
  const Tensor log_softmax = RunOne(MakeNodeDef("lsm", "LogSoftmax", {{"T", DT_FLOAT}}), {input});
  ASSERT_EQ(softmax.NumElements(), rows * classes);
  ASSERT_EQ(log_softmax.NumElements(), rows * classes);
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = logits.data() + r * classes;
    double max = x[0];
    for (int64_t j = 1; j < classes; ++j) max = std::max(max, static_cast<double>(x[j]));
    double sum = 0;
    for (int64_t j = 0; j < classes; ++j) sum += std::exp(x[j] - max);
    double row_total = 0;
    for (int64_t j = 0; j < classes; ++j) {
      const double p = std::exp(x[j] - max) / sum;
      const double log_p = (x[j] - max) - std::log(sum);
      const float got = softmax.data<float>()[r * classes + j];
      const float got_log = log_softmax.data<float>()[r * classes + j];
      ASSERT_NEAR(got, p, 1e-6 * p + 1e-12) << "Softmax row " << r << ", class " << j;
      if (std::isinf(log_p)) {
        EXPECT_EQ(got_log, -INFINITY) << "LogSoftmax row " << r << ", class " << j;
      } else {
        ASSERT_NEAR(got_log, log_p, 1e-6 * (1 + std::abs(log_p)))
            << "LogSoftmax row " << r << ", class " << j;
      }
      row_total += got;
    }
    EXPECT_NEAR(row_total, 1.0, 1e-5) << "row " << r;
  }
  EXPECT_EQ(softmax.data<float>()[5 * classes], 1.0f);
}

TEST(SoftmaxTest, RejectsScalars) {
  KernelRunner runner(MakeNodeDef("my_softmax", "Softmax", {{"T", DT_FLOAT}}));
  auto out = runner.Run({Tensor::Scalar<float>(1)});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("my_softmax"));
  EXPECT_FALSE(InferShapes(MakeNodeDef("my_softmax", "Softmax", {{"T", DT_FLOAT}}),
                           {PartialTensorShape(TensorShape())})
                   .ok());
}

// ---- SparseSoftmaxCrossEntropyWithLogits ----

TEST(SparseXentTest, LossAndBackprop) {
  // Row 0: logits (1, 2, 3), label 2: loss = log(e + e^2 + e^3) - 3 = 0.40760596.
  // Row 1: logits (0, 0, 0), label 0: loss = log 3.
  KernelRunner runner(MakeNodeDef("xent", "SparseSoftmaxCrossEntropyWithLogits",
                                  {{"T", DT_FLOAT}, {"Tlabels", DT_INT32}}));
  auto out = runner.Run({Matrix({1, 2, 3, 0, 0, 0}, 2, 3), Tensor::FromVector<int32_t>({2, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorNear((*out)[0], Tensor::FromVector<float>({0.40760596f, std::log(3.0f)}));
  ExpectTensorNear(
      (*out)[1],
      Matrix({0.09003057f, 0.24472847f, 0.66524096f - 1, 1 / 3.0f - 1, 1 / 3.0f, 1 / 3.0f}, 2, 3));
}

TEST(SparseXentTest, DoubleWithInt64LabelsIsStable) {
  KernelRunner runner(MakeNodeDef("xent", "SparseSoftmaxCrossEntropyWithLogits",
                                  {{"T", DT_DOUBLE}, {"Tlabels", DT_INT64}}));
  auto out = runner.Run({Tensor::FromVector<double>({1000, 0}, TensorShape({1, 2})),
                         Tensor::FromVector<int64_t>({1})});
  ASSERT_TRUE(out.ok()) << out.status();
  // loss = log(e^1000 + 1) - 0 = 1000 (to double precision).
  ExpectTensorNear((*out)[0], Tensor::FromVector<double>({1000}), 1e-9, 1e-12);
  ExpectTensorNear((*out)[1], Tensor::FromVector<double>({1, -1}, TensorShape({1, 2})), 1e-12);
}

TEST(SparseXentTest, LabelOutOfRangeNamesNodeAndLabel) {
  KernelRunner runner(MakeNodeDef("my_xent", "SparseSoftmaxCrossEntropyWithLogits",
                                  {{"T", DT_FLOAT}, {"Tlabels", DT_INT64}}));
  auto out = runner.Run({Matrix({1, 2, 3, 4, 5, 6}, 2, 3), Tensor::FromVector<int64_t>({0, 7})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              AllOf(HasSubstr("my_xent"), HasSubstr("label value of 7"), HasSubstr("[0, 3)")));
  auto negative =
      runner.Run({Matrix({1, 2, 3, 4, 5, 6}, 2, 3), Tensor::FromVector<int64_t>({-1, 0})});
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(), HasSubstr("label value of -1"));
}

TEST(SparseXentTest, ShapeFunctionMergesBatch) {
  NodeDef def = MakeNodeDef("xent", "SparseSoftmaxCrossEntropyWithLogits", {{"T", DT_FLOAT}});
  auto shapes = InferShapes(def, {PartialTensorShape({-1, 10}), PartialTensorShape({32})});
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialTensorShape({32}));
  EXPECT_EQ((*shapes)[1], PartialTensorShape({32, 10}));
  EXPECT_FALSE(InferShapes(def, {PartialTensorShape({8, 10}), PartialTensorShape({32})}).ok());
}

// ---- Graph builders ----

TEST(NnOpsBuilderTest, DenseLayerRunsInASession) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Const(root, Matrix({1, -1, 2, 0}, 2, 2));
  auto b = ops::Const(root, Tensor::FromVector<float>({0.5f, 0.5f}));
  auto h = ops::Relu(root.WithOpName("h"), ops::BiasAdd(root, ops::MatMul(root, x, w), b));
  auto t = ops::MatMul(root.WithOpName("t"), x, w, {.transpose_b = true});
  auto p = ops::Softmax(root.WithOpName("p"), ops::Tanh(root, ops::Sigmoid(root, h)));
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root.WithOpName("xent"), h,
                                                       Tensor::FromVector<int32_t>({1}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(xent.backprop.index(), 1);

  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(def).ok());
  std::vector<Tensor> out;
  // x = [1 1]: x w = [3 -1]; + b = [3.5 -0.5]; relu = [3.5 0]. x w^T = [0 2].
  ASSERT_TRUE(
      (*session)->Run({{"x", Matrix({1, 1}, 1, 2)}}, {"h", "t", "p", "xent:0"}, {}, &out).ok());
  ExpectTensorNear(out[0], Matrix({3.5f, 0}, 1, 2));
  ExpectTensorNear(out[1], Matrix({0, 2}, 1, 2));
  EXPECT_NEAR(out[2].flat<float>()(0) + out[2].flat<float>()(1), 1.0f, 1e-6);
  // loss = log(e^3.5 + 1) - 0.
  EXPECT_NEAR(out[3].flat<float>()(0), std::log(std::exp(3.5f) + 1.0f), 1e-5);
}

TEST(NnOpsBuilderTest, IncompatibleConstantsFailAtGraphConstruction) {
  Scope root = Scope::NewRootScope();
  ops::MatMul(root.WithOpName("bad"), ops::Const(root, Matrix({1, 2}, 1, 2)),
              ops::Const(root, Matrix({1, 2, 3}, 3, 1)));
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok());
  absl::Status s = (*session)->Create(def);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("bad"), HasSubstr("[1,2]"), HasSubstr("[3,1]")));
}

}  // namespace
}  // namespace minitf
