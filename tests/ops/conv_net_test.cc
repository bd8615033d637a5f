// End-to-end checks of the image ops in graphs built with the C++ wrappers
// and run by a Session: a Conv2D -> Relu -> MaxPool -> Reshape -> MatMul
// network against the direct-loop references, and a small CNN whose
// hand-written backward pass (Conv2DBackpropFilter, MaxPoolGrad, ...) trains
// it by gradient descent.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "session/session.h"
#include "tests/ops/conv_reference.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::RandomTensor;

const ops::Conv2DAttrs kConvSame = {.padding = "SAME"};
const ops::MaxPoolAttrs kPool2x2 = {
    .ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}, .padding = "VALID"};

std::unique_ptr<Session> MakeSession(const Scope& root) {
  GraphDef graph;
  EXPECT_TRUE(root.ToGraphDef(&graph).ok()) << root.status();
  auto session = NewSession(SessionOptions());
  EXPECT_TRUE(session.ok()) << session.status();
  EXPECT_TRUE((*session)->Create(graph).ok());
  return *std::move(session);
}

TEST(ConvNetTest, ForwardPassHasTheExpectedShapeAndValues) {
  const Tensor filter = RandomTensor<float>(TensorShape({3, 3, 1, 4}), 1);
  const Tensor weights = RandomTensor<float>(TensorShape({64, 10}), 2);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {-1, 8, 8, 1}});
  auto conv = ops::Conv2D(root, x, ops::Const(root, filter), kConvSame);
  auto pool = ops::MaxPool(root, ops::Relu(root, conv), kPool2x2);
  auto flat = ops::Reshape(root, pool, {-1, 4 * 4 * 4});
  ops::MatMul(root.WithOpName("logits"), flat, ops::Const(root, weights));
  auto session = MakeSession(root);

  const Tensor images = RandomTensor<float>(TensorShape({2, 8, 8, 1}), 3);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", images}}, {"logits"}, {}, &out).ok());
  ASSERT_EQ(out[0].shape(), TensorShape({2, 10}));

  // The same network from the references.
  Tensor expected = test::RefMaxPool<float>(
      test::RefConv2D<float>(images, filter, {.same = true}),
      {.window_rows = 2, .window_cols = 2, .stride_rows = 2, .stride_cols = 2});
  // Relu commutes with max pooling.
  for (int64_t i = 0; i < expected.NumElements(); ++i) {
    expected.flat<float>()(i) = std::max(expected.flat<float>()(i), 0.0f);
  }
  Tensor logits(DT_FLOAT, TensorShape({2, 10}));
  for (int b = 0; b < 2; ++b) {
    for (int j = 0; j < 10; ++j) {
      double sum = 0;
      for (int k = 0; k < 64; ++k) {
        sum += static_cast<double>(expected.flat<float>()(b * 64 + k)) *
               weights.matrix<float>()(k, j);
      }
      logits.matrix<float>()(b, j) = static_cast<float>(sum);
    }
  }
  test::ExpectTensorNear(out[0], logits, 1e-4, 1e-4);
}

// 8x8 images of faint noise with one bright 2x2 blob; the label says whether
// the blob is in the left (0) or right (1) half.
void MakeBlobImages(int count, uint32_t seed, Tensor* images, Tensor* labels) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> noise(0.0f, 0.1f);
  std::uniform_int_distribution<int> row(0, 6), col(0, 2), side(0, 1);
  *images = Tensor(DT_FLOAT, TensorShape({count, 8, 8, 1}));
  *labels = Tensor(DT_INT32, TensorShape({count}));
  auto px = images->tensor<float, 4>();
  for (int n = 0; n < count; ++n) {
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < 8; ++c) px(n, r, c, 0) = noise(rng);
    }
    const int label = side(rng);
    const int top = row(rng), left = col(rng) + 4 * label;
    for (int r = top; r < top + 2; ++r) {
      for (int c = left; c < left + 2; ++c) px(n, r, c, 0) = 1.0f;
    }
    labels->vec<int32_t>()(n) = label;
  }
}

TEST(ConvNetTest, SmallCnnTrainsWithTheGradientOps) {
  constexpr int kBatch = 32;
  constexpr float kLearningRate = 0.5f;
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {kBatch, 8, 8, 1}});
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32, {.shape = {kBatch}});
  auto filter = ops::Variable(root.WithOpName("filter"), {3, 3, 1, 4}, DT_FLOAT);
  auto w = ops::Variable(root.WithOpName("w"), {64, 2}, DT_FLOAT);
  ops::Assign(root.WithOpName("init_filter"), filter,
              RandomTensor<float>(TensorShape({3, 3, 1, 4}), 11, -0.5, 0.5));
  ops::Assign(root.WithOpName("init_w"), w,
              RandomTensor<float>(TensorShape({64, 2}), 12, -0.1, 0.1));

  // Forward.
  auto conv = ops::Conv2D(root, x, filter, kConvSame);
  auto relu = ops::Relu(root, conv);
  auto pool = ops::MaxPool(root, relu, kPool2x2);
  auto flat = ops::Reshape(root, pool, {kBatch, 64});
  auto logits = ops::MatMul(root, flat, w);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
  ops::Mean(root.WithOpName("loss"), xent.loss, {0});

  // Backward, by hand, for the mean loss.
  auto dlogits = ops::Mul(root, xent.backprop, 1.0f / kBatch);
  auto dw = ops::MatMul(root, flat, dlogits, {.transpose_a = true});
  auto dflat = ops::MatMul(root, dlogits, w, {.transpose_b = true});
  auto dpool = ops::Reshape(root, dflat, ops::Shape(root, pool));
  auto drelu = ops::MaxPoolGrad(root, relu, pool, dpool, kPool2x2);
  auto dconv = ops::ReluGrad(root, drelu, conv);
  auto dfilter = ops::Conv2DBackpropFilter(root, x, {3, 3, 1, 4}, dconv, kConvSame);
  // Unused by the update, but part of a deeper network's backward pass.
  ops::Conv2DBackpropInput(root.WithOpName("dx"), {kBatch, 8, 8, 1}, filter, dconv, kConvSame);
  ops::ApplyGradientDescent(root.WithOpName("train_filter"), filter, kLearningRate, dfilter);
  ops::ApplyGradientDescent(root.WithOpName("train_w"), w, kLearningRate, dw);
  auto session = MakeSession(root);

  Tensor images, targets;
  MakeBlobImages(kBatch, 5, &images, &targets);
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", images}, {"labels", targets}};
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {"init_filter", "init_w"}, &out).ok());
  ASSERT_TRUE(session->Run(feeds, {"loss", "dx"}, {}, &out).ok());
  const float initial_loss = out[0].scalar<float>()();
  EXPECT_EQ(out[1].shape(), TensorShape({kBatch, 8, 8, 1}));
  for (int step = 0; step < 100; ++step) {
    ASSERT_TRUE(session->Run(feeds, {}, {"train_filter", "train_w"}, &out).ok());
  }
  ASSERT_TRUE(session->Run(feeds, {"loss"}, {}, &out).ok());
  const float final_loss = out[0].scalar<float>()();
  EXPECT_LT(final_loss, 0.25f * initial_loss)
      << "initial loss " << initial_loss << ", final loss " << final_loss;
}

}  // namespace
}  // namespace minitf
