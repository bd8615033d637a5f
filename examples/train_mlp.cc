// Trains a 2-layer perceptron with gradients minitf derives: the model is
// written forward only, and an optimizer's Minimize adds its gradients
// (AddSymbolicGradients) and updates.
//
// The data: points in the plane, labelled by which of three rings around the
// origin they fall in (not linearly separable, so the hidden layer matters).
//
//   build/bin/train_mlp [--steps=300] [--learning_rate=0.5] [--print_every=20]
//                       [--device=CPU|GPU]
//
// Prints "step <n> loss <value>" every few steps, then the final accuracy.
#include <cstdio>

#include "bench/models/mlp_model.h"
#include "examples/example_flags.h"
#include "ops/cc/optimizers.h"
#include "ops/cc/variables.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"
#include "session/session.h"

namespace minitf {
namespace {

absl::Status Train(const ExampleFlags& flags) {
  constexpr int kHidden = 32, kClasses = 3, kExamples = 512;
  Scope root = Scope::NewRootScope().WithDevice(flags.device);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {-1, 2}});
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32, {.shape = {-1}});

  // The model, forward only: logits = relu(x W1 + b1) W2 + b2.
  auto w1 = ops::NewVariable(root.WithOpName("w1"), {2, kHidden}, DT_FLOAT,
                             ops::RandomStandardNormal(root, {2, kHidden}, DT_FLOAT, {.seed = 1}));
  auto b1 = ops::NewVariable(root.WithOpName("b1"), {kHidden}, DT_FLOAT, ops::Fill(root, {kHidden}, 0.0f));
  auto w2 = ops::NewVariable(
      root.WithOpName("w2"), {kHidden, kClasses}, DT_FLOAT,
      ops::Mul(root, ops::RandomStandardNormal(root, {kHidden, kClasses}, DT_FLOAT, {.seed = 2}), 0.25f));
  auto b2 = ops::NewVariable(root.WithOpName("b2"), {kClasses}, DT_FLOAT, ops::Fill(root, {kClasses}, 0.0f));
  auto hidden = ops::Relu(root, ops::BiasAdd(root, ops::MatMul(root, x, w1), b1));
  auto logits = ops::BiasAdd(root, ops::MatMul(root, hidden, w2), b2);
  auto loss = ops::Mean(root, ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels).loss, {0});

  // Training: the gradients of the loss and the updates, then the initialiser.
  Output train;
  ops::GradientDescentOptimizer sgd({.learning_rate = flags.learning_rate});
  MINITF_RETURN_IF_ERROR(sgd.Minimize(root, loss, /*vars=*/{}, &train));
  auto init = ops::GlobalVariablesInitializer(root);

  GraphDef graph;
  MINITF_RETURN_IF_ERROR(root.ToGraphDef(&graph));
  // Ops without a kernel on the requested device (a GPU may have no
  // kernel for the random initializers, say) run on the CPU, as TensorFlow
  // programs that pin a model to a GPU ask with allow_soft_placement.
  SessionOptions options;
  options.config.allow_soft_placement = true;
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(options));
  MINITF_RETURN_IF_ERROR(session->Create(graph));
  MINITF_RETURN_IF_ERROR(session->Run({}, {}, {init.node_name()}, nullptr));
  MlpConfig data_config;
  data_config.classes = kClasses;
  MINITF_ASSIGN_OR_RETURN(Batch data, MakeRingsBatch(data_config, kExamples, /*seed=*/1234));
  const std::vector<std::pair<std::string, Tensor>> feeds = {{x.name(), data.x},
                                                             {labels.name(), data.labels}};
  std::vector<Tensor> out;
  for (int step = 1; step <= flags.steps; ++step) {
    MINITF_RETURN_IF_ERROR(session->Run(feeds, {loss.name()}, {train.node_name()}, &out));
    if (step % flags.print_every == 0 || step == 1) {
      std::printf("step %d loss %.4f\n", step, out[0].scalar<float>()());
    }
  }
  MINITF_RETURN_IF_ERROR(session->Run(feeds, {logits.name()}, {}, &out));
  std::printf("accuracy %.3f on %d examples\n", Accuracy(out[0], data.labels), kExamples);
  return absl::OkStatus();
}

}  // namespace
}  // namespace minitf

int main(int argc, char** argv) {
  minitf::ExampleFlags flags;
  if (!minitf::ParseExampleFlags(argc, argv, &flags)) return 2;
  if (absl::Status s = minitf::Train(flags); !s.ok()) {
    std::fprintf(stderr, "train_mlp: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
