#include "bench/models/train_loop.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "platform/status_macros.h"
#include "session/session.h"

namespace minitf {

absl::StatusOr<TrainLoopResult> TrainLoop(const TrainingModel& model, const Batch& batch,
                                          const TrainLoopOptions& options) {
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(options.session_options));
  MINITF_RETURN_IF_ERROR(session->Create(model.graph));
  MINITF_RETURN_IF_ERROR(session->Run({}, {}, {model.init}, nullptr));

  const auto feeds = batch.Feeds(model);
  TrainLoopResult result;
  std::vector<Tensor> out;
  for (int step = 0; step <= options.steps; ++step) {
    const bool report = step % options.print_every == 0 || step == options.steps;
    std::vector<std::string> fetches;
    if (report) fetches.push_back(model.loss);
    std::vector<std::string> targets;
    if (step < options.steps) targets.push_back(model.train);  // the last run only evaluates
    MINITF_RETURN_IF_ERROR(session->Run(feeds, fetches, targets, &out));
    if (!report) continue;
    const float loss = out[0].scalar<float>()();
    if (step == 0) result.first_loss = loss;
    result.last_loss = loss;
    std::printf("step %d loss %.4f\n", step, loss);
    std::fflush(stdout);
  }
  MINITF_RETURN_IF_ERROR(session->Run(feeds, {model.logits}, {}, &out));
  result.accuracy = Accuracy(out[0], batch.labels);
  MINITF_RETURN_IF_ERROR(session->Close());
  return result;
}

}  // namespace minitf
