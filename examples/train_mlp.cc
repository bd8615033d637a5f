// Trains a 2-layer perceptron on synthetic data through Session::Run.
//
// The data: points in the plane, labelled by which of three rings around the
// origin they fall in (not linearly separable, so the hidden layer matters).
// The model (bench/models/mlp_model.h): logits = relu(x W1 + b1) W2 + b2,
// softmax cross-entropy, plain gradient descent with hand-written gradients.
//
//   build/bin/train_mlp [--steps=300] [--learning_rate=0.5] [--print_every=20]
//                       [--device=CPU|GPU]
//
// Prints "step <n> loss <value>" every few steps, then the final accuracy.
#include <cstdio>

#include "bench/models/mlp_model.h"
#include "bench/models/train_loop.h"
#include "examples/example_flags.h"

int main(int argc, char** argv) {
  using namespace minitf;
  ExampleFlags flags;
  if (!ParseExampleFlags(argc, argv, &flags)) return 2;
  const MlpConfig config{.features = 2, .hidden = 32, .classes = 3,
                         .learning_rate = flags.learning_rate, .device = flags.device};
  absl::StatusOr<TrainingModel> model = BuildMlpModel(config);
  if (!model.ok()) {
    std::fprintf(stderr, "building the model: %s\n", model.status().ToString().c_str());
    return 1;
  }
  constexpr int kExamples = 512;
  const absl::StatusOr<Batch> data = MakeRingsBatch(config, kExamples, /*seed=*/1234);
  if (!data.ok()) {
    std::fprintf(stderr, "making the batch: %s\n", data.status().ToString().c_str());
    return 1;
  }
  absl::StatusOr<TrainLoopResult> result =
      TrainLoop(*model, *data,
                {.steps = flags.steps, .print_every = flags.print_every, .session_options = {}});
  if (!result.ok()) {
    std::fprintf(stderr, "training: %s\n", result.status().ToString().c_str());
    return 1;
  }
  std::printf("accuracy %.3f on %d examples\n", result->accuracy, kExamples);
  return 0;
}
