// TransformerModel: a sequence classifier made of one transformer block
// (multi-head self-attention and an MLP, each with a residual connection),
// with its training step, as a GraphDef, and synthetic sequences to feed it.
//
//   x [B,T,D] -> rows [B*T,D]
//   q, k, v = rows Wq, rows Wk, rows Wv, each split into H heads [B,H,T,D/H]
//   p = softmax(q k^T / sqrt(D/H)) over the keys; a = p v, heads merged [B*T,D]
//   h1 = rows + a Wo                                    (attention, residual)
//   h2 = h1 + (relu(h1 W1 + b1) W2 + b2)                (MLP, residual)
//   logits = mean of h2 over T, [B,D] -> Wc + bc        [B,classes]
//
// Softmax cross-entropy, plain gradient descent on the gradients
// AddSymbolicGradients derives. There is no layer normalisation.
//
// Variables (in this order); TrainingModel::gradients names the tensor
// holding the gradient of the loss with respect to each.
//   attention/query, attention/key, attention/value, attention/output  [D,D]
//   mlp/dense1/weights [D,F], mlp/dense1/bias [F]
//   mlp/dense2/weights [F,D], mlp/dense2/bias [D]
//   classifier/weights [D,classes], classifier/bias [classes]
//
//   TransformerConfig config;  // 16 positions of 64 features, 4 heads, 3 classes
//   MINITF_ASSIGN_OR_RETURN(TrainingModel model, BuildTransformerModel(config));
//   MINITF_ASSIGN_OR_RETURN(Batch batch, MakeSequenceBatch(config, /*batch_size=*/32, 1));
#ifndef MINITF_BENCH_MODELS_TRANSFORMER_MODEL_H_
#define MINITF_BENCH_MODELS_TRANSFORMER_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/models/model_util.h"

namespace minitf {

struct TransformerConfig {
  int seq_len = 16;  // T: positions per sequence
  int d_model = 64;  // D: features per position
  int heads = 4;     // H: attention heads; must divide d_model
  int hidden = 256;  // F: width of the MLP's hidden layer
  int classes = 3;   // >= 2
  float learning_rate = 0.05f;
  // Where the model's nodes ask to run ("" lets the placer choose).
  std::string device;
};

// InvalidArgument naming the field for a size that is not positive,
// classes < 2, or heads not dividing d_model.
absl::StatusOr<TrainingModel> BuildTransformerModel(const TransformerConfig& config);

// The names of the model's variables, in creation order (the table above).
std::vector<std::string> TransformerVariableNames();

// Sequences of noise, N(0, 0.5^2) per feature, with the marker of the
// sequence's class added at one random position. Each class has a fixed
// marker (entries +-1, the same for every seed), so the class is which
// marker appears, wherever it is. Labels cycle through the classes.
// Deterministic for a seed. The config's errors, InvalidArgument for
// batch_size < 1, and ResourceExhausted naming the feed and its shape when
// host memory cannot hold the batch.
absl::StatusOr<Batch> MakeSequenceBatch(const TransformerConfig& config, int batch_size,
                                        uint32_t seed);

}  // namespace minitf

#endif  // MINITF_BENCH_MODELS_TRANSFORMER_MODEL_H_
