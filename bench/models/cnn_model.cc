#include "bench/models/cnn_model.h"

#include <cmath>
#include <limits>
#include <random>

#include "absl/strings/str_cat.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"

namespace minitf {
namespace {

constexpr int kMaxInt = std::numeric_limits<int>::max();

// The width of the dense layer's input: the pooled activations flattened.
int64_t DenseWidth(const CnnConfig& c) {
  const int64_t half = c.image_size / 2;
  return half * half * c.channels;
}

absl::Status CheckConfig(const char* caller, const CnnConfig& c) {
  MINITF_RETURN_IF_ERROR(CheckRange(caller, "image_size", c.image_size, 2, kMaxInt));
  if (c.image_size % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        caller, ": image_size must be even (the 2x2 max pool halves it), got ", c.image_size));
  }
  MINITF_RETURN_IF_ERROR(CheckRange(caller, "channels", c.channels, 1, kMaxInt));
  MINITF_RETURN_IF_ERROR(CheckRange(caller, "classes", c.classes, 2, kMaxInt));
  // Also bounds every activation: [batch, image_size, image_size, channels]
  // has at most 4 * batch * DenseWidth elements.
  if (DenseWidth(c) > kMaxInt) {
    return absl::InvalidArgumentError(absl::StrCat(
        caller, ": (image_size/2)^2 * channels, the dense layer's input width, must be at most ",
        kMaxInt, ", got ", DenseWidth(c), " (image_size ", c.image_size, ", channels ", c.channels,
        ")"));
  }
  return absl::OkStatus();
}

Tensor IntVector(std::vector<int32_t> values) {
  return Tensor::FromVector<int32_t>(absl::Span<const int32_t>(values),
                                     TensorShape({static_cast<int64_t>(values.size())}));
}

// He initialisation: N(0, 2 / fan_in).
float HeScale(int fan_in) { return std::sqrt(2.0f / static_cast<float>(fan_in)); }

}  // namespace

absl::StatusOr<TrainingModel> BuildCnnModel(const CnnConfig& config) {
  MINITF_RETURN_IF_ERROR(CheckConfig("BuildCnnModel", config));
  const int s = config.image_size, c = config.channels, k = config.classes;
  const int flat = static_cast<int>(DenseWidth(config));
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

  std::map<std::string, std::string> gradients;
  MINITF_ASSIGN_OR_RETURN(Output train_op,
                          params.TrainOp("train", loss, config.learning_rate, &gradients));
  return FinishTrainingModel(root, init_op, train_op, loss, logits, x, labels,
                             std::move(gradients));
}

absl::StatusOr<Batch> MakeBarsBatch(const CnnConfig& config, int batch_size, uint32_t seed) {
  constexpr char kCaller[] = "MakeBarsBatch";
  MINITF_RETURN_IF_ERROR(CheckConfig(kCaller, config));
  MINITF_RETURN_IF_ERROR(CheckRange(kCaller, "batch_size", batch_size, 1, kMaxInt));
  const int s = config.image_size;
  Batch batch;
  MINITF_ASSIGN_OR_RETURN(
      batch.x, AllocateBatchTensor(kCaller, "feed 'images'", DT_FLOAT, {batch_size, s, s, 1}));
  MINITF_ASSIGN_OR_RETURN(batch.labels,
                          AllocateBatchTensor(kCaller, "feed 'labels'", DT_INT32, {batch_size}));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> noise(0.0f, 0.3f);
  // Bars keep off the border, except in images too small to have an inside.
  std::uniform_int_distribution<int> pos(s > 2 ? 1 : 0, s > 2 ? s - 2 : s - 1);
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
