#include "bench/models/mlp_model.h"

#include <cmath>
#include <limits>
#include <random>

#include "bench/models/model_util.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"

namespace minitf {
namespace {

absl::Status CheckConfig(const char* caller, const MlpConfig& c) {
  constexpr int kMax = std::numeric_limits<int>::max();
  MINITF_RETURN_IF_ERROR(CheckRange(caller, "features", c.features, 1, kMax));
  MINITF_RETURN_IF_ERROR(CheckRange(caller, "hidden", c.hidden, 1, kMax));
  return CheckRange(caller, "classes", c.classes, 1, kMax);
}

}  // namespace

absl::StatusOr<TrainingModel> BuildMlpModel(const MlpConfig& config) {
  MINITF_RETURN_IF_ERROR(CheckConfig("BuildMlpModel", config));
  const int f = config.features, h = config.hidden, c = config.classes;
  Scope root = Scope::NewRootScope().WithDevice(config.device);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {-1, f}});
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32, {.shape = {-1}});

  // Normal weights (scaled by 1.5/sqrt(fan-in) past a fan-in of 4), zero biases.
  Parameters params(root, root.NewSubScope("init"));
  auto scale = [](int fan_in) {
    return fan_in <= 4 ? 1.0f : 1.5f / std::sqrt(static_cast<float>(fan_in));
  };
  auto w1 = params.Normal("w1", {f, h}, scale(f), 1);
  auto b1 = params.Zeros("b1", {h});
  auto w2 = params.Normal("w2", {h, c}, scale(h), 2);
  auto b2 = params.Zeros("b2", {c});
  auto init_op = params.InitOp("init");

  // Forward pass.
  auto h_pre = ops::BiasAdd(root, ops::MatMul(root, x, w1), b1);
  auto hidden = ops::Relu(root, h_pre);
  auto logits = ops::BiasAdd(root.WithOpName("logits"), ops::MatMul(root, hidden, w2), b2);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
  auto loss = ops::Mean(root.WithOpName("loss"), xent.loss, {0});

  std::map<std::string, std::string> gradients;
  MINITF_ASSIGN_OR_RETURN(Output train_op,
                          params.TrainOp("train", loss, config.learning_rate, &gradients));
  return FinishTrainingModel(root, init_op, train_op, loss, logits, x, labels,
                             std::move(gradients));
}

absl::StatusOr<Batch> MakeRingsBatch(const MlpConfig& config, int batch_size, uint32_t seed) {
  constexpr char kCaller[] = "MakeRingsBatch";
  MINITF_RETURN_IF_ERROR(CheckConfig(kCaller, config));
  MINITF_RETURN_IF_ERROR(
      CheckRange(kCaller, "batch_size", batch_size, 1, std::numeric_limits<int>::max()));
  Batch batch;
  MINITF_ASSIGN_OR_RETURN(
      batch.x, AllocateBatchTensor(kCaller, "feed 'x'", DT_FLOAT, {batch_size, config.features}));
  MINITF_ASSIGN_OR_RETURN(batch.labels,
                          AllocateBatchTensor(kCaller, "feed 'labels'", DT_INT32, {batch_size}));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> coord(-3.0f, 3.0f);
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

}  // namespace minitf
