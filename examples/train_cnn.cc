// Trains a small ResNet-style CNN on synthetic images through Session::Run.
//
// The data: 12x12 images of one bright bar on a noisy background, labelled by
// the bar's orientation (horizontal, vertical, diagonal). The model
// (bench/models/cnn_model.h): a convolution, a residual block of two
// convolutions, max pooling and a dense layer, trained with softmax
// cross-entropy and plain gradient descent with hand-written gradients.
//
//   build/bin/train_cnn [--steps=100] [--learning_rate=0.05] [--print_every=10]
//                       [--device=CPU|GPU]
//
// Prints "step <n> loss <value>" every few steps, then the final accuracy.
#include <cstdio>

#include "bench/models/cnn_model.h"
#include "bench/models/train_loop.h"
#include "examples/example_flags.h"

int main(int argc, char** argv) {
  using namespace minitf;
  ExampleFlags flags;
  flags.steps = 100;
  flags.learning_rate = 0.05f;
  flags.print_every = 10;
  if (!ParseExampleFlags(argc, argv, &flags)) return 2;
  CnnConfig config;
  config.learning_rate = flags.learning_rate;
  config.device = flags.device;
  absl::StatusOr<TrainingModel> model = BuildCnnModel(config);
  if (!model.ok()) {
    std::fprintf(stderr, "building the model: %s\n", model.status().ToString().c_str());
    return 1;
  }
  constexpr int kExamples = 96;
  const absl::StatusOr<Batch> data = MakeBarsBatch(config, kExamples, /*seed=*/1234);
  if (!data.ok()) {
    std::fprintf(stderr, "making the batch: %s\n", data.status().ToString().c_str());
    return 1;
  }
  // Ops without a kernel on the requested device run on the CPU, as
  // TensorFlow programs that pin a model to a GPU ask with
  // allow_soft_placement.
  SessionOptions session_options;
  session_options.config.allow_soft_placement = true;
  absl::StatusOr<TrainLoopResult> result =
      TrainLoop(*model, *data,
                {.steps = flags.steps, .print_every = flags.print_every,
                 .session_options = session_options});
  if (!result.ok()) {
    std::fprintf(stderr, "training: %s\n", result.status().ToString().c_str());
    return 1;
  }
  std::printf("accuracy %.3f on %d examples\n", result->accuracy, kExamples);
  return 0;
}
