#include "bench/models/transformer_model.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"

namespace minitf {
namespace {

// The variables, in the order Parameters creates them.
constexpr const char* kVariables[] = {
    "attention/query",    "attention/key",   "attention/value",    "attention/output",
    "mlp/dense1/weights", "mlp/dense1/bias", "mlp/dense2/weights", "mlp/dense2/bias",
    "classifier/weights", "classifier/bias"};

// The seed of the class markers: one set for every batch.
constexpr uint32_t kMarkerSeed = 20240917;
constexpr float kNoiseStddev = 0.5f;

absl::Status CheckConfig(const char* caller, const TransformerConfig& c) {
  auto positive = [caller](const char* field, int value) -> absl::Status {
    if (value >= 1) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(caller, ": ", field, " must be positive, got ", value));
  };
  const std::pair<const char*, int> sizes[] = {
      {"seq_len", c.seq_len}, {"d_model", c.d_model}, {"heads", c.heads}, {"hidden", c.hidden}};
  for (const auto& [field, value] : sizes) {
    if (absl::Status s = positive(field, value); !s.ok()) return s;
  }
  if (c.d_model % c.heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat(caller, ": d_model (", c.d_model,
                                                   ") must be divisible by heads (", c.heads, ")"));
  }
  if (c.classes < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(caller, ": classes must be at least 2, got ", c.classes));
  }
  return absl::OkStatus();
}

float InverseSqrt(int n) { return 1.0f / std::sqrt(static_cast<float>(n)); }

// Reshapes between rows [B*T, D] and heads [B, H, T, D/H].
struct Heads {
  int t, d, h;

  // rows [B*T, D] -> [B, T, H, D/H] -> [B, H, T, D/H].
  Output Split(const Scope& s, Input rows) const {
    return ops::Transpose(s, ops::Reshape(s, rows, {-1, t, h, d / h}), {0, 2, 1, 3});
  }
  // [B, H, T, D/H] -> [B, T, H, D/H] -> rows [B*T, D].
  Output Merge(const Scope& s, Input heads) const {
    return ops::Reshape(s, ops::Transpose(s, heads, {0, 2, 1, 3}), {-1, d});
  }
};

}  // namespace

std::vector<std::string> TransformerVariableNames() {
  return std::vector<std::string>(std::begin(kVariables), std::end(kVariables));
}

absl::StatusOr<TrainingModel> BuildTransformerModel(const TransformerConfig& config) {
  MINITF_RETURN_IF_ERROR(CheckConfig("BuildTransformerModel", config));
  const int t = config.seq_len, d = config.d_model, f = config.hidden, c = config.classes;
  const Heads heads{t, d, config.heads};
  const float scale = InverseSqrt(d / config.heads);

  Scope root = Scope::NewRootScope().WithDevice(config.device);
  auto x = ops::Placeholder(root.WithOpName("sequences"), DT_FLOAT, {.shape = {-1, t, d}});
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32, {.shape = {-1}});

  // Projections N(0, 1/fan_in); the ReLU layer's He N(0, 2/fan_in).
  Parameters params(root, root.NewSubScope("init"));
  auto wq = params.Normal(kVariables[0], {d, d}, InverseSqrt(d), 1);
  auto wk = params.Normal(kVariables[1], {d, d}, InverseSqrt(d), 2);
  auto wv = params.Normal(kVariables[2], {d, d}, InverseSqrt(d), 3);
  auto wo = params.Normal(kVariables[3], {d, d}, InverseSqrt(d), 4);
  auto w1 = params.Normal(kVariables[4], {d, f}, std::sqrt(2.0f) * InverseSqrt(d), 5);
  auto b1 = params.Zeros(kVariables[5], {f});
  auto w2 = params.Normal(kVariables[6], {f, d}, InverseSqrt(f), 6);
  auto b2 = params.Zeros(kVariables[7], {d});
  auto wc = params.Normal(kVariables[8], {d, c}, InverseSqrt(d), 7);
  auto bc = params.Zeros(kVariables[9], {c});
  auto init_op = params.InitOp("init");

  // Forward pass.
  Scope attn = root.NewSubScope("attention");
  auto rows = ops::Reshape(attn, x, {-1, d});
  auto q = heads.Split(attn, ops::MatMul(attn, rows, wq));
  auto k = heads.Split(attn, ops::MatMul(attn, rows, wk));
  auto v = heads.Split(attn, ops::MatMul(attn, rows, wv));
  auto scores = ops::Mul(attn, ops::BatchMatMul(attn, q, k, {.adj_y = true}), scale);
  auto probs = ops::Softmax(attn, scores);  // [B, H, T(queries), T(keys)]
  auto mixed = heads.Merge(attn, ops::BatchMatMul(attn, probs, v));
  auto h1 = ops::Add(attn, rows, ops::MatMul(attn, mixed, wo));

  Scope mlp = root.NewSubScope("mlp");
  auto u_pre = ops::BiasAdd(mlp, ops::MatMul(mlp, h1, w1), b1);
  auto u = ops::Relu(mlp, u_pre);
  auto h2 = ops::Add(mlp, h1, ops::BiasAdd(mlp, ops::MatMul(mlp, u, w2), b2));

  auto h2_seq = ops::Reshape(root, h2, {-1, t, d});
  auto pooled = ops::Mean(root, h2_seq, {1});
  auto logits = ops::BiasAdd(root.WithOpName("logits"), ops::MatMul(root, pooled, wc), bc);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
  auto loss = ops::Mean(root.WithOpName("loss"), xent.loss, {0});

  std::map<std::string, std::string> gradients;
  MINITF_ASSIGN_OR_RETURN(Output train_op,
                          params.TrainOp("train", loss, config.learning_rate, &gradients));
  return FinishTrainingModel(root, init_op, train_op, loss, logits, x, labels,
                             std::move(gradients));
}

absl::StatusOr<Batch> MakeSequenceBatch(const TransformerConfig& config, int batch_size,
                                        uint32_t seed) {
  constexpr char kCaller[] = "MakeSequenceBatch";
  MINITF_RETURN_IF_ERROR(CheckConfig(kCaller, config));
  MINITF_RETURN_IF_ERROR(
      CheckRange(kCaller, "batch_size", batch_size, 1, std::numeric_limits<int>::max()));
  const int t_len = config.seq_len, d = config.d_model, classes = config.classes;
  Batch batch;
  MINITF_ASSIGN_OR_RETURN(
      batch.x, AllocateBatchTensor(kCaller, "feed 'sequences'", DT_FLOAT, {batch_size, t_len, d}));
  MINITF_ASSIGN_OR_RETURN(batch.labels,
                          AllocateBatchTensor(kCaller, "feed 'labels'", DT_INT32, {batch_size}));
  // The markers of the classes the batch holds (labels cycle, so the first
  // min(classes, batch_size)); class k's marker is the same in every batch.
  MINITF_ASSIGN_OR_RETURN(Tensor marker_table,
                          AllocateBatchTensor(kCaller, "the class markers", DT_FLOAT,
                                              {std::min(classes, batch_size), d}));
  auto markers = marker_table.matrix<float>();
  std::mt19937 marker_rng(kMarkerSeed);
  for (int k = 0; k < markers.dimension(0); ++k) {
    for (int j = 0; j < d; ++j) markers(k, j) = marker_rng() % 2 == 0 ? 1.0f : -1.0f;
  }
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, kNoiseStddev);
  std::uniform_int_distribution<int> position(0, t_len - 1);
  auto x = batch.x.tensor<float, 3>();
  auto labels = batch.labels.vec<int32_t>();
  for (int b = 0; b < batch_size; ++b) {
    const int label = b % classes;
    labels(b) = label;
    for (int i = 0; i < t_len; ++i) {
      for (int j = 0; j < d; ++j) x(b, i, j) = noise(rng);
    }
    const int at = position(rng);
    for (int j = 0; j < d; ++j) x(b, at, j) += markers(label, j);
  }
  return batch;
}

}  // namespace minitf
