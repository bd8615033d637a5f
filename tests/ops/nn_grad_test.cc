// The neural-network ops' gradients against central differences, after
// TensorFlow's cc/gradients/nn_grad_test.cc. Conv2D, pooling and batch norm
// take float only: their checks run in float, with float's tolerance.
#include "gtest/gtest.h"
#include "ops/cc/array_ops.h"
#include "ops/cc/math_ops.h"
#include "ops/cc/nn_ops.h"
#include "tests/testlib/grad_check.h"

namespace minitf {
namespace {

using test::GradientError;
using test::GradientErrorAt;
using Xs = std::vector<Output>;

constexpr double kTolerance = 1e-6;
constexpr double kFloatTolerance = 2e-3;

// Values in [-1, 1] that keep at least 0.1 from 0 (the kinks of the ReLUs).
Tensor AwayFromZero(TensorShape shape) {
  Tensor t(DT_DOUBLE, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const double magnitude = 0.1 + 0.9 * static_cast<double>((i * 7) % 11) / 11.0;
    t.data<double>()[i] = (i % 3 == 0 ? -1 : 1) * magnitude;
  }
  return t;
}

TEST(NnGradTest, BiasAddBothFormats) {
  EXPECT_LT(GradientError({{2, 3}, {3}}, {2, 3},
                          [](const Scope& s, const Xs& x) { return ops::BiasAdd(s, x[0], x[1]); }),
            kTolerance);
  EXPECT_LT(GradientError({{2, 3, 2, 2}, {3}}, {2, 3, 2, 2},
                          [](const Scope& s, const Xs& x) {
                            return ops::BiasAdd(s, x[0], x[1], {.data_format = "NCHW"});
                          }),
            kTolerance);
  EXPECT_LT(GradientError({{2, 3, 2}}, {3},
                          [](const Scope& s, const Xs& x) {
                            return ops::BiasAddGrad(s, x[0], {.data_format = "NCHW"});
                          }),
            kTolerance);
  EXPECT_LT(GradientError({{2, 2, 3}}, {3},
                          [](const Scope& s, const Xs& x) { return ops::BiasAddGrad(s, x[0]); }),
            kTolerance);
}

TEST(NnGradTest, L2Loss) {
  EXPECT_LT(GradientError({{2, 3, 4}}, {},
                          [](const Scope& s, const Xs& x) { return ops::L2Loss(s, x[0]); }),
            kTolerance);
}

TEST(NnGradTest, Activations) {
  const Tensor x = AwayFromZero({2, 3});
  using Fn = Output (*)(const Scope&, Input);
  for (const auto& entry : {std::pair<const char*, Fn>{"Relu", ops::Relu}, {"Relu6", ops::Relu6},
                            {"Elu", ops::Elu}, {"Softmax", ops::Softmax},
                            {"LogSoftmax", ops::LogSoftmax}}) {
    const Fn op = entry.second;
    EXPECT_LT(GradientErrorAt({x}, {2, 3}, [&](const Scope& s, const Xs& v) { return op(s, v[0]); }),
              kTolerance)
        << entry.first;
  }
  EXPECT_LT(GradientErrorAt({x}, {2, 3},
                            [](const Scope& s, const Xs& v) {
                              return ops::LeakyRelu(s, v[0], {.alpha = 0.3f});
                            }),
            kTolerance);
}

TEST(NnGradTest, ActivationGradientOps) {
  const Tensor dy = AwayFromZero({2, 3});
  const Tensor x = AwayFromZero({2, 3});
  EXPECT_LT(GradientErrorAt({dy, x}, {2, 3},
                            [](const Scope& s, const Xs& v) { return ops::ReluGrad(s, v[0], v[1]); }),
            kTolerance);
  EXPECT_LT(GradientErrorAt({dy, x}, {2, 3},
                            [](const Scope& s, const Xs& v) { return ops::Relu6Grad(s, v[0], v[1]); }),
            kTolerance);
  EXPECT_LT(GradientErrorAt({dy, x}, {2, 3},
                            [](const Scope& s, const Xs& v) {
                              return ops::LeakyReluGrad(s, v[0], v[1], {.alpha = 0.3f});
                            }),
            kTolerance);
  // EluGrad takes Elu's outputs, which are > -1.
  EXPECT_LT(GradientErrorAt({dy, x}, {2, 3},
                            [](const Scope& s, const Xs& v) { return ops::EluGrad(s, v[0], v[1]); }),
            kTolerance);
}

TEST(NnGradTest, CrossEntropyLossesAndTheirBackprop) {
  EXPECT_LT(GradientError({{3, 4}, {3, 4}}, {3},
                          [](const Scope& s, const Xs& x) {
                            return ops::SoftmaxCrossEntropyWithLogits(s, x[0], ops::Softmax(s, x[1]))
                                .loss;
                          }),
            kTolerance);
  EXPECT_LT(GradientError({{3, 4}}, {3},
                          [](const Scope& s, const Xs& x) {
                            return ops::SparseSoftmaxCrossEntropyWithLogits(s, x[0], {0, 3, 1}).loss;
                          }),
            kTolerance);
  // A loss built on the backprop output too: the second-order term.
  EXPECT_LT(GradientError({{3, 4}}, {3, 4},
                          [](const Scope& s, const Xs& x) {
                            auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(s, x[0], {0, 3, 1});
                            return ops::Add(s, xent.backprop, ops::ExpandDims(s, xent.loss, -1));
                          }),
            kTolerance);
}

TEST(NnGradTest, Conv2DAndItsBackprops) {
  for (const char* padding : {"SAME", "VALID"}) {
    const ops::Conv2DAttrs attrs{.strides = {1, 2, 1, 1}, .padding = padding};
    const TensorShape out = std::string(padding) == "SAME" ? TensorShape({1, 2, 3, 2})
                                                           : TensorShape({1, 2, 1, 2});
    EXPECT_LT(GradientError({{1, 4, 3, 2}, {2, 3, 2, 2}}, out,
                            [&](const Scope& s, const Xs& x) {
                              return ops::Conv2D(s, x[0], x[1], attrs);
                            },
                            DT_FLOAT),
              kFloatTolerance)
        << padding;
  }
  // NCHW: the gradients keep the layout.
  const ops::Conv2DAttrs nchw{.strides = {1, 1, 2, 1}, .padding = "SAME", .data_format = "NCHW"};
  EXPECT_LT(GradientError({{1, 2, 4, 3}, {2, 3, 2, 2}}, {1, 2, 2, 3},
                          [&](const Scope& s, const Xs& x) {
                            return ops::Conv2D(s, x[0], x[1], nchw);
                          },
                          DT_FLOAT),
            kFloatTolerance);
  const ops::Conv2DAttrs same{.padding = "SAME"};
  EXPECT_LT(GradientError({{2, 2, 2, 3}, {1, 3, 3, 3}}, {1, 3, 3, 2},
                          [&](const Scope& s, const Xs& x) {
                            return ops::Conv2DBackpropInput(s, {1, 3, 3, 2}, x[0], x[1], same);
                          },
                          DT_FLOAT),
            kFloatTolerance);
  EXPECT_LT(GradientError({{1, 3, 3, 2}, {1, 3, 3, 3}}, {2, 2, 2, 3},
                          [&](const Scope& s, const Xs& x) {
                            return ops::Conv2DBackpropFilter(s, x[0], {2, 2, 2, 3}, x[1], same);
                          },
                          DT_FLOAT),
            kFloatTolerance);
}

TEST(NnGradTest, Pooling) {
  const ops::MaxPoolAttrs attrs{.ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}, .padding = "VALID"};
  // Distinct values a difference step cannot reorder.
  Tensor x(DT_FLOAT, TensorShape({1, 4, 4, 1}));
  for (int i = 0; i < 16; ++i) x.data<float>()[i] = static_cast<float>((i * 5) % 16) * 0.1f;
  EXPECT_LT(GradientErrorAt({x}, {1, 2, 2, 1},
                            [&](const Scope& s, const Xs& v) { return ops::MaxPool(s, v[0], attrs); }),
            kFloatTolerance);
  const ops::AvgPoolAttrs avg{.ksize = {1, 2, 2, 1}, .strides = {1, 1, 1, 1}, .padding = "SAME"};
  EXPECT_LT(GradientError({{1, 3, 3, 2}}, {1, 3, 3, 2},
                          [&](const Scope& s, const Xs& v) { return ops::AvgPool(s, v[0], avg); },
                          DT_FLOAT),
            kFloatTolerance);
  EXPECT_LT(GradientError({{1, 3, 3, 2}}, {1, 3, 3, 2},
                          [&](const Scope& s, const Xs& v) {
                            return ops::AvgPoolGrad(s, {1, 3, 3, 2}, v[0], avg);
                          },
                          DT_FLOAT),
            kFloatTolerance);
}

TEST(NnGradTest, FusedBatchNormTrainingAndInference) {
  for (bool v3 : {false, true}) {
    for (bool training : {true, false}) {
      const double error = GradientError(
          {{2, 2, 2, 3}, {3}, {3}}, {2, 2, 2, 3},
          [&](const Scope& s, const Xs& x) {
            Input mean(Tensor::FromVector<float>({0.1f, -0.2f, 0.3f}, TensorShape({3})));
            Input variance(Tensor::FromVector<float>({1.0f, 0.5f, 2.0f}, TensorShape({3})));
            const ops::FusedBatchNormAttrs attrs{.epsilon = 0.001f, .is_training = training};
            if (!training) {
              return v3 ? ops::FusedBatchNormV3(s, x[0], x[1], x[2], mean, variance, attrs).y
                        : ops::FusedBatchNorm(s, x[0], x[1], x[2], mean, variance, attrs).y;
            }
            Input empty(Tensor(DT_FLOAT, TensorShape({0})));
            return v3 ? ops::FusedBatchNormV3(s, x[0], x[1], x[2], empty, empty, attrs).y
                      : ops::FusedBatchNorm(s, x[0], x[1], x[2], empty, empty, attrs).y;
          },
          DT_FLOAT);
      EXPECT_LT(error, 5e-3) << (v3 ? "V3" : "V1") << (training ? " training" : " inference");
    }
  }
}

}  // namespace
}  // namespace minitf
