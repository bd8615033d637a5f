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
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "bench/models/mlp_model.h"
#include "session/session.h"

namespace minitf {
namespace {

constexpr int kExamples = 512;

struct Flags {
  int steps = 300;
  float learning_rate = 0.5f;
  int print_every = 20;
  std::string device;  // "" = the placer's choice
};

bool ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    bool ok = false;
    if (absl::ConsumePrefix(&arg, "--steps=")) {
      ok = absl::SimpleAtoi(arg, &flags->steps) && flags->steps > 0;
    } else if (absl::ConsumePrefix(&arg, "--learning_rate=")) {
      ok = absl::SimpleAtof(arg, &flags->learning_rate) && flags->learning_rate > 0;
    } else if (absl::ConsumePrefix(&arg, "--print_every=")) {
      ok = absl::SimpleAtoi(arg, &flags->print_every) && flags->print_every > 0;
    } else if (absl::ConsumePrefix(&arg, "--device=")) {
      flags->device = arg.empty() ? "" : "/device:" + std::string(arg) + ":0";
      ok = true;
    }
    if (!ok) {
      std::fprintf(stderr, "bad flag '%s'\nusage: %s [--steps=N] [--learning_rate=F] "
                   "[--print_every=N] [--device=CPU|GPU]\n", argv[i], argv[0]);
      return false;
    }
  }
  return true;
}

bool Check(const absl::Status& s, const char* what) {
  if (s.ok()) return true;
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  return false;
}

int Main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, &flags)) return 2;
  const MlpConfig config{.features = 2, .hidden = 32, .classes = 3,
                         .learning_rate = flags.learning_rate, .device = flags.device};
  absl::StatusOr<TrainingModel> model = BuildMlpModel(config);
  if (!Check(model.status(), "building the model")) return 1;
  absl::StatusOr<std::unique_ptr<Session>> session = NewSession(SessionOptions());
  if (!Check(session.status(), "NewSession")) return 1;
  if (!Check((*session)->Create(model->graph), "Create")) return 1;
  if (!Check((*session)->Run({}, {}, {model->init}, nullptr), "init")) return 1;

  const Batch data = MakeRingsBatch(config, kExamples, /*seed=*/1234);
  const auto feeds = data.Feeds(*model);
  std::vector<Tensor> out;
  for (int step = 0; step <= flags.steps; ++step) {
    const bool report = step % flags.print_every == 0 || step == flags.steps;
    std::vector<std::string> fetches;
    if (report) fetches.push_back(model->loss);
    std::vector<std::string> targets;
    if (step < flags.steps) targets.push_back(model->train);  // the last run only evaluates
    if (!Check((*session)->Run(feeds, fetches, targets, &out), "train step")) return 1;
    if (report) std::printf("step %d loss %.4f\n", step, out[0].scalar<float>()());
  }
  if (!Check((*session)->Run(feeds, {model->logits}, {}, &out), "predict")) return 1;
  std::printf("accuracy %.3f on %d examples\n", Accuracy(out[0], data.labels), kExamples);
  return 0;
}

}  // namespace
}  // namespace minitf

int main(int argc, char** argv) { return minitf::Main(argc, argv); }
