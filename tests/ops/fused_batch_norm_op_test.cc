// Tests of FusedBatchNorm / FusedBatchNormV3 and their gradients: TensorFlow's
// training semantics on hand-computed values (batch_variance Bessel-corrected,
// normalization by the biased variance, the running averages of
// exponential_avg_factor, what the reserve spaces hold), inference with the
// given statistics, NHWC and NCHW against a direct-loop reference, the
// gradients against finite differences of the forward op, shapes, and errors.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/ops/conv_reference.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorNear;
using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using test::RandomTensor;
using ::testing::AllOf;
using ::testing::HasSubstr;

struct Options {
  bool v3 = true;
  bool is_training = true;
  float epsilon = 0.001f;
  float factor = 1.0f;
  bool nchw = false;
};

NodeDef BatchNormNode(const Options& o) {
  AttrValueMap attrs = {{"T", DT_FLOAT},
                        {"epsilon", o.epsilon},
                        {"exponential_avg_factor", o.factor},
                        {"data_format", o.nchw ? "NCHW" : "NHWC"},
                        {"is_training", o.is_training}};
  if (o.v3) attrs["U"] = DT_FLOAT;
  return MakeNodeDef("bn", o.v3 ? "FusedBatchNormV3" : "FusedBatchNorm", attrs);
}

NodeDef GradNode(const Options& o) {
  AttrValueMap attrs = {{"T", DT_FLOAT},
                        {"epsilon", o.epsilon},
                        {"data_format", o.nchw ? "NCHW" : "NHWC"},
                        {"is_training", o.is_training}};
  if (o.v3) attrs["U"] = DT_FLOAT;
  return MakeNodeDef("bn_grad", o.v3 ? "FusedBatchNormGradV3" : "FusedBatchNormGrad", attrs);
}

Tensor Vec(std::initializer_list<float> v) { return Tensor::FromVector<float>(v); }
Tensor Empty() { return Tensor(DT_FLOAT, TensorShape({0})); }

std::vector<Tensor> RunKernel(NodeDef def, const std::vector<Tensor>& inputs, int threads = 2) {
  KernelRunner runner(std::move(def), threads);
  auto out = runner.Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<Tensor>();
}

// x: N=2, H=W=1, C=2 (NHWC): channel 0 holds {1, 3}, channel 1 {2, 6}.
// Batch means 2 and 4, biased variances 1 and 4, unbiased 2 and 8.
Tensor SmallX() { return Tensor::FromVector<float>({1, 2, 3, 6}, TensorShape({2, 1, 1, 2})); }

TEST(FusedBatchNormTest, TrainingNormalizesByTheBiasedVarianceAndReportsTheUnbiasedOne) {
  const std::vector<Tensor> out = RunKernel(BatchNormNode({.epsilon = 0}),
                                      {SmallX(), Vec({1, 2}), Vec({0, 1}), Empty(), Empty()});
  ASSERT_EQ(out.size(), 6u);
  // y = (x - mean) / sqrt(biased variance) * scale + offset.
  ExpectTensorNear(out[0], Tensor::FromVector<float>({-1, -1, 1, 3}, TensorShape({2, 1, 1, 2})));
  ExpectTensorNear(out[1], Vec({2, 4}));  // batch_mean
  ExpectTensorNear(out[2], Vec({2, 8}));  // batch_variance: n / (n - 1) * biased
  ExpectTensorNear(out[3], Vec({2, 4}));  // reserve_space_1: the batch mean
  ExpectTensorNear(out[4], Vec({1, 4}));  // reserve_space_2: the biased variance
  EXPECT_EQ(out[5].shape(), TensorShape());  // reserve_space_3: a scalar 0
  EXPECT_EQ(out[5].flat<float>()(0), 0.0f);
}

TEST(FusedBatchNormTest, ExponentialAvgFactorBlendsTheGivenRunningStatistics) {
  const std::vector<Tensor> out =
      RunKernel(BatchNormNode({.epsilon = 0, .factor = 0.5f}),
          {SmallX(), Vec({1, 2}), Vec({0, 1}), Vec({0, 10}), Vec({1, 1})});
  ASSERT_EQ(out.size(), 6u);
  ExpectTensorNear(out[0], Tensor::FromVector<float>({-1, -1, 1, 3}, TensorShape({2, 1, 1, 2})));
  ExpectTensorNear(out[1], Vec({0.5f * 0 + 0.5f * 2, 0.5f * 10 + 0.5f * 4}));
  ExpectTensorNear(out[2], Vec({0.5f * 1 + 0.5f * 2, 0.5f * 1 + 0.5f * 8}));
  ExpectTensorNear(out[3], Vec({2, 4}));
  ExpectTensorNear(out[4], Vec({1, 4}));
}

TEST(FusedBatchNormTest, InferenceUsesTheGivenMeanAndVariance) {
  const std::vector<Tensor> out =
      RunKernel(BatchNormNode({.is_training = false, .epsilon = 0}),
          {SmallX(), Vec({1, 3}), Vec({0, 1}), Vec({1, 2}), Vec({4, 16})});
  ASSERT_EQ(out.size(), 6u);
  // Channel 0: (x - 1) / 2; channel 1: (x - 2) / 4 * 3 + 1.
  ExpectTensorNear(out[0], Tensor::FromVector<float>({0, 1, 1, 4}, TensorShape({2, 1, 1, 2})));
  ExpectTensorNear(out[1], Vec({1, 2}));
  ExpectTensorNear(out[2], Vec({4, 16}));
  ExpectTensorNear(out[3], Vec({1, 2}));
  ExpectTensorNear(out[4], Vec({4, 16}));
}

TEST(FusedBatchNormTest, VersionOneHasFiveOutputs) {
  const std::vector<Tensor> out = RunKernel(BatchNormNode({.v3 = false, .epsilon = 0}),
                                      {SmallX(), Vec({1, 2}), Vec({0, 1}), Empty(), Empty()});
  ASSERT_EQ(out.size(), 5u);
  ExpectTensorNear(out[2], Vec({2, 8}));
  ExpectTensorNear(out[4], Vec({1, 4}));
}

TEST(FusedBatchNormTest, EmptyInputGivesNanStatistics) {
  const std::vector<Tensor> out =
      RunKernel(BatchNormNode({}), {Tensor(DT_FLOAT, TensorShape({0, 2, 2, 3})), Vec({1, 1, 1}),
                              Vec({0, 0, 0}), Empty(), Empty()});
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0].shape(), TensorShape({0, 2, 2, 3}));
  EXPECT_TRUE(std::isnan(out[1].flat<float>()(0)));
  EXPECT_TRUE(std::isnan(out[2].flat<float>()(2)));
}

// ---- A direct-loop reference, in double, for either layout ----

struct Reference {
  std::vector<double> y, batch_mean, batch_variance, mean, variance;
};

// Element (n, h, w, c) of x stored NHWC or NCHW.
int64_t At(const TensorShape& nhwc, bool nchw, int64_t n, int64_t h, int64_t w, int64_t c) {
  const int64_t H = nhwc.dim_size(1), W = nhwc.dim_size(2), C = nhwc.dim_size(3);
  return nchw ? ((n * C + c) * H + h) * W + w : ((n * H + h) * W + w) * C + c;
}

template <typename Fn>
void ForEachOfChannel(const TensorShape& nhwc, int64_t c, Fn&& fn) {
  for (int64_t n = 0; n < nhwc.dim_size(0); ++n) {
    for (int64_t h = 0; h < nhwc.dim_size(1); ++h) {
      for (int64_t w = 0; w < nhwc.dim_size(2); ++w) fn(n, h, w);
    }
  }
}

Reference RefBatchNorm(const Tensor& x, const TensorShape& nhwc, const Options& o,
                       const Tensor& scale, const Tensor& offset, const Tensor& mean,
                       const Tensor& variance) {
  const int64_t C = nhwc.dim_size(3);
  const double count = static_cast<double>(nhwc.num_elements() / C);
  Reference r;
  r.y.resize(x.NumElements());
  auto xv = x.flat<float>();
  for (int64_t c = 0; c < C; ++c) {
    double m = 0, v = 0;
    if (o.is_training) {
      ForEachOfChannel(nhwc, c, [&](int64_t n, int64_t h, int64_t w) {
        m += xv(At(nhwc, o.nchw, n, h, w, c));
      });
      m /= count;
      ForEachOfChannel(nhwc, c, [&](int64_t n, int64_t h, int64_t w) {
        const double d = xv(At(nhwc, o.nchw, n, h, w, c)) - m;
        v += d * d;
      });
      v /= count;
      const double unbiased = v * count / (count - 1);
      r.batch_mean.push_back(o.factor * m + (1 - o.factor) * (o.factor == 1 ? 0 : mean.flat<float>()(c)));
      r.batch_variance.push_back(o.factor * unbiased +
                                 (1 - o.factor) * (o.factor == 1 ? 0 : variance.flat<float>()(c)));
    } else {
      m = mean.flat<float>()(c);
      v = variance.flat<float>()(c);
      r.batch_mean.push_back(m);
      r.batch_variance.push_back(v);
    }
    r.mean.push_back(m);
    r.variance.push_back(v);
    ForEachOfChannel(nhwc, c, [&](int64_t n, int64_t h, int64_t w) {
      const int64_t i = At(nhwc, o.nchw, n, h, w, c);
      r.y[i] = (xv(i) - m) / std::sqrt(v + o.epsilon) * scale.flat<float>()(c) +
               offset.flat<float>()(c);
    });
  }
  return r;
}

Tensor Floats(const std::vector<double>& v, const TensorShape& shape) {
  return test::FromDoubles<float>(v, shape);
}

TensorShape Stored(const TensorShape& nhwc, bool nchw) {
  if (!nchw) return nhwc;
  return TensorShape({nhwc.dim_size(0), nhwc.dim_size(3), nhwc.dim_size(1), nhwc.dim_size(2)});
}

TEST(FusedBatchNormTest, MatchesTheReferenceInBothLayoutsAndModes) {
  const TensorShape nhwc({3, 5, 4, 6});
  const TensorShape channels({6});
  uint32_t seed = 11;
  for (bool nchw : {false, true}) {
    for (bool training : {true, false}) {
      for (float factor : {1.0f, 0.3f}) {
        for (int threads : {1, 3}) {
          const Options o = {.is_training = training, .factor = factor, .nchw = nchw};
          SCOPED_TRACE(absl::StrCat("nchw=", nchw, " training=", training, " factor=", factor,
                                    " threads=", threads));
          const Tensor x = RandomTensor<float>(Stored(nhwc, nchw), seed++, -2, 3);
          const Tensor scale = RandomTensor<float>(channels, seed++, 0.5, 2);
          const Tensor offset = RandomTensor<float>(channels, seed++);
          const Tensor mean = RandomTensor<float>(channels, seed++);
          const Tensor variance = RandomTensor<float>(channels, seed++, 0.5, 2);
          const std::vector<Tensor> out =
              RunKernel(BatchNormNode(o), {x, scale, offset, mean, variance}, threads);
          ASSERT_EQ(out.size(), 6u);
          const Reference r = RefBatchNorm(x, nhwc, o, scale, offset, mean, variance);
          ExpectTensorNear(out[0], Floats(r.y, x.shape()), 1e-5, 1e-5);
          ExpectTensorNear(out[1], Floats(r.batch_mean, channels), 1e-5, 1e-5);
          ExpectTensorNear(out[2], Floats(r.batch_variance, channels), 1e-5, 1e-5);
          ExpectTensorNear(out[3], Floats(r.mean, channels), 1e-5, 1e-5);
          ExpectTensorNear(out[4], Floats(r.variance, channels), 1e-5, 1e-5);
        }
      }
    }
  }
}

// ---- Gradients against central differences of the forward op ----

// sum(y * w) for y = the forward op's output; the forward op in `o`'s mode.
double Loss(const Options& o, const std::vector<Tensor>& inputs, const Tensor& w) {
  const std::vector<Tensor> out = RunKernel(BatchNormNode(o), inputs);
  double sum = 0;
  for (int64_t i = 0; i < w.NumElements(); ++i) {
    sum += static_cast<double>(out[0].flat<float>()(i)) * w.flat<float>()(i);
  }
  return sum;
}

// Checks gradient `analytic` of input `which` of the forward op.
void ExpectFiniteDifferences(const Options& o, std::vector<Tensor> inputs, int which,
                             const Tensor& w, const Tensor& analytic) {
  SCOPED_TRACE(absl::StrCat("input ", which));
  const float h = 1e-2f;
  Tensor& t = inputs[which];
  ASSERT_EQ(t.NumElements(), analytic.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const float saved = t.flat<float>()(i);
    t.flat<float>()(i) = saved + h;
    const double up = Loss(o, inputs, w);
    t.flat<float>()(i) = saved - h;
    const double down = Loss(o, inputs, w);
    t.flat<float>()(i) = saved;
    const double numeric = (up - down) / (2.0 * h);
    EXPECT_NEAR(analytic.flat<float>()(i), numeric, 2e-3 + 2e-3 * std::abs(numeric))
        << "element " << i;
  }
}

void CheckGradients(const Options& o) {
  const TensorShape nhwc({2, 3, 2, 3});
  const TensorShape channels({3});
  const Tensor x = RandomTensor<float>(Stored(nhwc, o.nchw), 31, -2, 2);
  const Tensor scale = RandomTensor<float>(channels, 32, 0.5, 2);
  const Tensor offset = RandomTensor<float>(channels, 33);
  const Tensor mean = o.is_training ? Empty() : RandomTensor<float>(channels, 34);
  const Tensor variance = o.is_training ? Empty() : RandomTensor<float>(channels, 35, 0.5, 2);
  const Tensor w = RandomTensor<float>(x.shape(), 36);
  const std::vector<Tensor> inputs = {x, scale, offset, mean, variance};
  const std::vector<Tensor> fwd = RunKernel(BatchNormNode(o), inputs);
  ASSERT_EQ(fwd.size(), o.v3 ? 6u : 5u);
  std::vector<Tensor> grad_inputs = {w, x, scale, fwd[3], fwd[4]};
  if (o.v3) grad_inputs.push_back(fwd[5]);
  const std::vector<Tensor> grads = RunKernel(GradNode(o), grad_inputs);
  ASSERT_EQ(grads.size(), 5u);
  ExpectFiniteDifferences(o, inputs, 0, w, grads[0]);  // x
  ExpectFiniteDifferences(o, inputs, 1, w, grads[1]);  // scale
  ExpectFiniteDifferences(o, inputs, 2, w, grads[2]);  // offset
  EXPECT_EQ(grads[3].shape(), TensorShape({0}));
  EXPECT_EQ(grads[4].shape(), TensorShape({0}));
}

TEST(FusedBatchNormGradTest, TrainingMatchesFiniteDifferencesNhwc) {
  CheckGradients({.is_training = true});
}
TEST(FusedBatchNormGradTest, TrainingMatchesFiniteDifferencesNchw) {
  CheckGradients({.is_training = true, .nchw = true});
}
TEST(FusedBatchNormGradTest, InferenceMatchesFiniteDifferences) {
  CheckGradients({.is_training = false});
}
TEST(FusedBatchNormGradTest, VersionOneMatchesFiniteDifferences) {
  CheckGradients({.v3 = false, .is_training = true});
}

TEST(FusedBatchNormGradTest, EmptyInputGivesZeroScaleAndOffsetGradients) {
  const Tensor x(DT_FLOAT, TensorShape({0, 2, 2, 2}));
  const std::vector<Tensor> out =
      RunKernel(GradNode({}), {x, x, Vec({1, 1}), Vec({0, 0}), Vec({1, 1}), Tensor::Scalar<float>(0)});
  ASSERT_EQ(out.size(), 5u);
  ExpectTensorNear(out[1], Vec({0, 0}));
  ExpectTensorNear(out[2], Vec({0, 0}));
}

// ---- Shapes ----

TEST(FusedBatchNormTest, ShapeFunctions) {
  auto fwd = InferShapes(BatchNormNode({.nchw = true}),
                         {PartialTensorShape({8, -1, 4, 4}), PartialTensorShape({16}),
                          PartialTensorShape({-1}), PartialTensorShape({0}),
                          PartialTensorShape({0})});
  ASSERT_TRUE(fwd.ok()) << fwd.status();
  EXPECT_EQ((*fwd)[0].DebugString(), PartialTensorShape({8, 16, 4, 4}).DebugString());
  EXPECT_EQ((*fwd)[2].DebugString(), PartialTensorShape({16}).DebugString());
  EXPECT_EQ((*fwd)[5].DebugString(), PartialTensorShape(TensorShape()).DebugString());
  // Inference reads mean and variance: their sizes must fit.
  auto bad = InferShapes(BatchNormNode({.is_training = false}),
                         {PartialTensorShape({8, 4, 4, 16}), PartialTensorShape({16}),
                          PartialTensorShape({16}), PartialTensorShape({0}),
                          PartialTensorShape({16})});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  EXPECT_THAT(bad.status().message(), HasSubstr("'bn'"));
  auto grad = InferShapes(GradNode({}), {PartialTensorShape({8, 4, 4, -1}),
                                         PartialTensorShape({-1, 4, 4, 16}),
                                         PartialTensorShape({-1}), PartialTensorShape({16}),
                                         PartialTensorShape({-1}), PartialTensorShape::Unknown()});
  ASSERT_TRUE(grad.ok()) << grad.status();
  EXPECT_EQ((*grad)[0].DebugString(), PartialTensorShape({8, 4, 4, 16}).DebugString());
  EXPECT_EQ((*grad)[1].DebugString(), PartialTensorShape({16}).DebugString());
  EXPECT_EQ((*grad)[3].DebugString(), PartialTensorShape({0}).DebugString());
}

// ---- Errors name the node and the input or attr at fault ----

void ExpectError(const absl::StatusOr<std::vector<Tensor>>& out, absl::StatusCode code,
                 const std::string& node, const std::string& detail) {
  EXPECT_EQ(out.status().code(), code) << out.status();
  EXPECT_THAT(out.status().message(), AllOf(HasSubstr("'" + node + "'"), HasSubstr(detail)));
}

TEST(FusedBatchNormErrorsTest, BadInputs) {
  KernelRunner training(BatchNormNode({}));
  ExpectError(training.Run({SmallX(), Vec({1, 2, 3}), Vec({0, 1}), Empty(), Empty()}),
              absl::StatusCode::kInvalidArgument, "bn",
              "scale must have the same number of elements as the channels of x, got 3 and 2");
  ExpectError(training.Run({Tensor(DT_FLOAT, TensorShape({2, 2})), Vec({1, 2}), Vec({0, 1}),
                            Empty(), Empty()}),
              absl::StatusCode::kInvalidArgument, "bn", "x must be 4-dimensional");
  ExpectError(training.Run({SmallX(), Tensor::Scalar<float>(1), Vec({0, 1}), Empty(), Empty()}),
              absl::StatusCode::kInvalidArgument, "bn", "scale must be 1-dimensional");
  KernelRunner inference(BatchNormNode({.is_training = false}));
  ExpectError(inference.Run({SmallX(), Vec({1, 2}), Vec({0, 1}), Empty(), Vec({1, 1})}),
              absl::StatusCode::kInvalidArgument, "bn",
              "When is_training=false, mean must have the same number of elements");
  KernelRunner running(BatchNormNode({.factor = 0.9f}));
  ExpectError(running.Run({SmallX(), Vec({1, 2}), Vec({0, 1}), Vec({0, 0}), Empty()}),
              absl::StatusCode::kInvalidArgument, "bn",
              "When exponential_avg_factor != 1, variance must have");
  KernelRunner grad(GradNode({}));
  ExpectError(grad.Run({SmallX(), Tensor(DT_FLOAT, TensorShape({2, 1, 2, 2})), Vec({1, 2}),
                        Vec({0, 0}), Vec({1, 1}), Tensor::Scalar<float>(0)}),
              absl::StatusCode::kInvalidArgument, "bn_grad",
              "x and y_backprop must be 4-dimensional and of the same shape");
  ExpectError(grad.Run({SmallX(), SmallX(), Vec({1, 2}), Vec({0}), Vec({1, 1}), Tensor::Scalar<float>(0)}),
              absl::StatusCode::kInvalidArgument, "bn_grad",
              "reserve_space_1 must have the same number of elements as the channels of x");
}

TEST(FusedBatchNormErrorsTest, BadDataFormat) {
  AttrValueMap attrs = {{"T", DT_FLOAT}, {"U", DT_FLOAT}, {"data_format", "NDHWC"}};
  KernelRunner five_d(MakeNodeDef("bn", "FusedBatchNormV3", attrs));
  EXPECT_EQ(five_d.status().code(), absl::StatusCode::kUnimplemented) << five_d.status();
  EXPECT_THAT(five_d.status().message(), AllOf(HasSubstr("'bn'"), HasSubstr("'NDHWC'")));
  attrs["data_format"] = "HWCN";
  KernelRunner bad(MakeNodeDef("bn", "FusedBatchNormGradV3", attrs));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  EXPECT_THAT(bad.status().message(), AllOf(HasSubstr("'bn'"), HasSubstr("'HWCN'")));
}

}  // namespace
}  // namespace minitf
