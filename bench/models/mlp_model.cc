#include "bench/models/mlp_model.h"

#include <cmath>
#include <random>

#include "ops/standard_ops.h"

namespace minitf {

absl::StatusOr<TrainingModel> BuildMlpModel(const MlpConfig& config) {
  const int f = config.features, h = config.hidden, c = config.classes;
  Scope root = Scope::NewRootScope().WithDevice(config.device);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {-1, f}});
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32, {.shape = {-1}});

  auto w1 = ops::Variable(root.WithOpName("w1"), TensorShape({f, h}), DT_FLOAT);
  auto b1 = ops::Variable(root.WithOpName("b1"), TensorShape({h}), DT_FLOAT);
  auto w2 = ops::Variable(root.WithOpName("w2"), TensorShape({h, c}), DT_FLOAT);
  auto b2 = ops::Variable(root.WithOpName("b2"), TensorShape({c}), DT_FLOAT);

  // Initialisation: normal weights (scaled by 1.5/sqrt(fan-in) past a fan-in
  // of 4), zero biases.
  Scope init = root.NewSubScope("init");
  auto normal = [&](int rows, int cols, int seed) {
    const float scale = rows <= 4 ? 1.0f : 1.5f / std::sqrt(static_cast<float>(rows));
    Tensor dims = Tensor::FromVector<int32_t>({rows, cols}, TensorShape({2}));
    return ops::Mul(init, ops::RandomStandardNormal(init, Input(dims), DT_FLOAT, {.seed = seed}),
                    scale);
  };
  auto zeros = [&](int n) { return ops::Fill(init, {n}, 0.0f); };
  std::vector<Output> assigns = {
      ops::Assign(init, w1, normal(f, h, 1)),
      ops::Assign(init, b1, zeros(h)),
      ops::Assign(init, w2, normal(h, c, 2)),
      ops::Assign(init, b2, zeros(c)),
  };
  auto init_op = ops::NoOp(root.WithOpName("init").WithControlDependencies(assigns));

  // Forward pass.
  auto h_pre = ops::BiasAdd(root, ops::MatMul(root, x, w1), b1);
  auto hidden = ops::Relu(root, h_pre);
  auto logits = ops::BiasAdd(root.WithOpName("logits"), ops::MatMul(root, hidden, w2), b2);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
  auto loss = ops::Mean(root.WithOpName("loss"), xent.loss, {0});

  // Backward pass: d(mean loss)/d(logits) = backprop / batch.
  Scope grad = root.NewSubScope("gradients");
  auto batch = ops::Cast(grad, ops::Shape(grad, labels), DT_FLOAT);
  auto dlogits = ops::Div(grad, xent.backprop, batch);
  auto dw2 = ops::MatMul(grad, hidden, dlogits, {.transpose_a = true});
  auto db2 = ops::Sum(grad, dlogits, {0});
  auto dh = ops::MatMul(grad, dlogits, w2, {.transpose_b = true});
  auto dh_pre = ops::ReluGrad(grad, dh, h_pre);
  auto dw1 = ops::MatMul(grad, x, dh_pre, {.transpose_a = true});
  auto db1 = ops::Sum(grad, dh_pre, {0});

  // Updates, after every gradient has read the weights.
  Scope update = root.NewSubScope("update").WithControlDependencies({dw1, db1, dw2, db2});
  const float lr = config.learning_rate;
  std::vector<Output> updates = {
      ops::ApplyGradientDescent(update, w1, lr, dw1),
      ops::ApplyGradientDescent(update, b1, lr, db1),
      ops::ApplyGradientDescent(update, w2, lr, dw2),
      ops::ApplyGradientDescent(update, b2, lr, db2),
  };
  auto train_op = ops::NoOp(root.WithOpName("train").WithControlDependencies(updates));

  TrainingModel model;
  if (absl::Status s = root.ToGraphDef(&model.graph); !s.ok()) return s;
  model.init = init_op.node_name();
  model.train = train_op.node_name();
  model.loss = loss.name();
  model.logits = logits.name();
  model.input = x.name();
  model.labels = labels.name();
  return model;
}

Batch MakeRingsBatch(const MlpConfig& config, int batch_size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> coord(-3.0f, 3.0f);
  Batch batch{Tensor(DT_FLOAT, TensorShape({batch_size, config.features})),
              Tensor(DT_INT32, TensorShape({batch_size}))};
  auto x = batch.x.matrix<float>();
  auto labels = batch.labels.vec<int32_t>();
  for (int i = 0; i < batch_size;) {
    float r2 = 0;
    for (int j = 0; j < config.features; ++j) {
      x(i, j) = coord(rng);
      if (j < 2) r2 += x(i, j) * x(i, j);
    }
    const float r = std::sqrt(r2);
    if (r >= 3.0f) continue;  // keep the points of the disc
    labels(i) = (r < 1.2f ? 0 : (r < 2.2f ? 1 : 2)) % config.classes;
    ++i;
  }
  return batch;
}

double Accuracy(const Tensor& logits, const Tensor& labels) {
  auto l = logits.matrix<float>();
  auto y = labels.vec<int32_t>();
  const int64_t rows = l.dimension(0);
  if (rows == 0) return 0.0;
  int64_t correct = 0;
  for (int64_t i = 0; i < rows; ++i) {
    int64_t best = 0;
    for (int64_t k = 1; k < l.dimension(1); ++k) {
      if (l(i, k) > l(i, best)) best = k;
    }
    correct += best == y(i);
  }
  return static_cast<double>(correct) / static_cast<double>(rows);
}

}  // namespace minitf
