// MlpModel: a two-layer perceptron classifier with its training step, as a
// GraphDef, and synthetic data to feed it.
//
// logits = relu(x W1 + b1) W2 + b2, softmax cross-entropy loss, plain
// gradient descent on the gradients AddSymbolicGradients derives (the
// updates run after every gradient has read the weights).
//
//   MlpConfig config{.features = 2, .hidden = 32, .classes = 3};
//   MINITF_ASSIGN_OR_RETURN(TrainingModel model, BuildMlpModel(config));
//   session->Create(model.graph);
//   session->Run({}, {}, {model.init}, nullptr);
//   MINITF_ASSIGN_OR_RETURN(Batch batch, MakeRingsBatch(config, /*batch_size=*/512, 1234));
//   session->Run(batch.Feeds(model), {model.loss}, {model.train}, &out);
#ifndef MINITF_BENCH_MODELS_MLP_MODEL_H_
#define MINITF_BENCH_MODELS_MLP_MODEL_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "bench/models/model_util.h"

namespace minitf {

struct MlpConfig {
  int features = 2;
  int hidden = 32;
  int classes = 3;
  float learning_rate = 0.5f;
  // Where the model's nodes ask to run ("" lets the placer choose).
  std::string device;
};

// InvalidArgument naming the field for a size that is not positive.
absl::StatusOr<TrainingModel> BuildMlpModel(const MlpConfig& config);

// Points uniformly in a ball of radius 3 (first two features; the others are
// noise), labelled by the ring they fall in: radius < 1.2 → 0, < 2.2 → 1,
// else 2 (class ids taken modulo config.classes). Not linearly separable, so
// the hidden layer matters. Deterministic for a seed. InvalidArgument for a
// size that is not positive; ResourceExhausted naming the feed and its shape
// when host memory cannot hold the batch.
absl::StatusOr<Batch> MakeRingsBatch(const MlpConfig& config, int batch_size, uint32_t seed);

}  // namespace minitf

#endif  // MINITF_BENCH_MODELS_MLP_MODEL_H_
