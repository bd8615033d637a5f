// TrainLoop: the examples' training loop: create a session, initialise the
// variables, run `steps` training steps on one batch, printing
// "step <n> loss <value>" every `print_every` steps, and report the accuracy
// on that batch.
#ifndef MINITF_BENCH_MODELS_TRAIN_LOOP_H_
#define MINITF_BENCH_MODELS_TRAIN_LOOP_H_

#include "absl/status/statusor.h"
#include "bench/models/model_util.h"
#include "session/session_options.h"

namespace minitf {

struct TrainLoopOptions {
  int steps = 300;
  int print_every = 20;
  SessionOptions session_options;
};

struct TrainLoopResult {
  float first_loss = 0;
  float last_loss = 0;
  double accuracy = 0;
};

absl::StatusOr<TrainLoopResult> TrainLoop(const TrainingModel& model, const Batch& batch,
                                          const TrainLoopOptions& options);

}  // namespace minitf

#endif  // MINITF_BENCH_MODELS_TRAIN_LOOP_H_
