#include "bench/models/cnn_model.h"

#include <cmath>
#include <random>

#include "ops/standard_ops.h"

namespace minitf {
namespace {

Tensor IntVector(std::vector<int32_t> values) {
  return Tensor::FromVector<int32_t>(absl::Span<const int32_t>(values),
                                     TensorShape({static_cast<int64_t>(values.size())}));
}

// He initialisation: N(0, 2 / fan_in).
float HeScale(int fan_in) { return std::sqrt(2.0f / static_cast<float>(fan_in)); }

}  // namespace

absl::StatusOr<TrainingModel> BuildCnnModel(const CnnConfig& config) {
  const int s = config.image_size, c = config.channels, k = config.classes;
  if (s < 2 || s % 2 != 0 || c < 1 || k < 2) {
    return absl::InvalidArgumentError(
        "BuildCnnModel: image_size must be even and >= 2, channels >= 1, classes >= 2");
  }
  const int flat = (s / 2) * (s / 2) * c;
  Scope root = Scope::NewRootScope().WithDevice(config.device);
  auto x = ops::Placeholder(root.WithOpName("images"), DT_FLOAT, {.shape = {-1, s, s, 1}});
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32, {.shape = {-1}});

  Parameters params(root, root.NewSubScope("init"));
  auto w1 = params.Normal("conv1/filter", {3, 3, 1, c}, HeScale(9), 1);
  auto b1 = params.Zeros("conv1/bias", {c});
  auto w2 = params.Normal("block/conv2/filter", {3, 3, c, c}, HeScale(9 * c), 2);
  auto b2 = params.Zeros("block/conv2/bias", {c});
  // The block's last convolution starts small, so the block starts close to
  // the identity (as residual networks are usually initialised).
  auto w3 = params.Normal("block/conv3/filter", {3, 3, c, c}, 0.1f * HeScale(9 * c), 3);
  auto b3 = params.Zeros("block/conv3/bias", {c});
  auto w4 = params.Normal("dense/weights", {flat, k}, HeScale(flat), 4);
  auto b4 = params.Zeros("dense/bias", {k});
  auto init_op = params.InitOp("init");

  const ops::Conv2DAttrs same{.padding = "SAME"};
  const ops::MaxPoolAttrs pool{.ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}, .padding = "VALID"};

  // Forward pass.
  auto a1 = ops::Relu(root, ops::BiasAdd(root, ops::Conv2D(root, x, w1, same), b1));
  auto a2 = ops::Relu(root, ops::BiasAdd(root, ops::Conv2D(root, a1, w2, same), b2));
  auto z3 = ops::BiasAdd(root, ops::Conv2D(root, a2, w3, same), b3);
  auto a3 = ops::Relu(root, ops::Add(root, a1, z3));
  auto pooled = ops::MaxPool(root, a3, pool);
  auto flat_in = ops::Reshape(root, pooled, Input(IntVector({-1, flat})));
  auto logits =
      ops::BiasAdd(root.WithOpName("logits"), ops::MatMul(root, flat_in, w4), b4);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
  auto loss = ops::Mean(root.WithOpName("loss"), xent.loss, {0});

  // Backward pass.
  Scope grad = root.NewSubScope("gradients");
  auto batch = ops::Cast(grad, ops::Shape(grad, labels), DT_FLOAT);
  auto dlogits = ops::Div(grad, xent.backprop, batch);
  auto dw4 = ops::MatMul(grad, flat_in, dlogits, {.transpose_a = true});
  auto db4 = ops::Sum(grad, dlogits, {0});
  auto dflat = ops::MatMul(grad, dlogits, w4, {.transpose_b = true});
  auto dpooled = ops::Reshape(grad, dflat, ops::Shape(grad, pooled));
  auto da3 = ops::MaxPoolGrad(grad, a3, pooled, dpooled, pool);
  auto ds = ops::ReluGrad(grad, da3, a3);  // gradient of a1 + z3
  auto conv_grads = [&](Output in, Output filter, Output dout, std::vector<int32_t> filter_dims,
                        Output* dfilter, Output* dbias) {
    *dbias = ops::Sum(grad, dout, {0, 1, 2});
    *dfilter = ops::Conv2DBackpropFilter(grad, in, Input(IntVector(filter_dims)), dout, same);
    return ops::Conv2DBackpropInput(grad, ops::Shape(grad, in), filter, dout, same);
  };
  Output dw3, db3, dw2, db2, dw1, db1;
  auto da2 = conv_grads(a2, w3, ds, {3, 3, c, c}, &dw3, &db3);
  auto dpre2 = ops::ReluGrad(grad, da2, a2);
  auto da1_block = conv_grads(a1, w2, dpre2, {3, 3, c, c}, &dw2, &db2);
  auto da1 = ops::Add(grad, ds, da1_block);  // the skip connection's share, plus the block's
  auto dpre1 = ops::ReluGrad(grad, da1, a1);
  db1 = ops::Sum(grad, dpre1, {0, 1, 2});
  dw1 = ops::Conv2DBackpropFilter(grad, x, Input(IntVector({3, 3, 1, c})), dpre1, same);

  auto train_op = params.TrainOp("train", {dw1, db1, dw2, db2, dw3, db3, dw4, db4},
                                 config.learning_rate);

  return FinishTrainingModel(root, init_op, train_op, loss, logits, x, labels);
}

Batch MakeBarsBatch(const CnnConfig& config, int batch_size, uint32_t seed) {
  const int s = config.image_size;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> noise(0.0f, 0.3f);
  std::uniform_int_distribution<int> pos(1, s - 2);
  Batch batch{Tensor(DT_FLOAT, TensorShape({batch_size, s, s, 1})),
              Tensor(DT_INT32, TensorShape({batch_size}))};
  auto img = batch.x.tensor<float, 4>();
  auto labels = batch.labels.vec<int32_t>();
  const int kinds = std::min(config.classes, 3);
  for (int b = 0; b < batch_size; ++b) {
    const int label = b % kinds;
    labels(b) = label;
    for (int i = 0; i < s; ++i) {
      for (int j = 0; j < s; ++j) img(b, i, j, 0) = noise(rng);
    }
    const int at = pos(rng);
    for (int t = 0; t < s; ++t) {
      const int i = label == 0 ? at : t;
      const int j = label == 1 ? at : (label == 2 ? (t + at) % s : t);
      img(b, i, j, 0) += 1.0f;
    }
  }
  return batch;
}

}  // namespace minitf
