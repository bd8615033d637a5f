// Trains a 2-layer perceptron on synthetic data through Session::Run.
//
// The data: points in the plane, labelled by which of three rings around the
// origin they fall in (not linearly separable, so the hidden layer matters).
// The model: logits = relu(x W1 + b1) W2 + b2, trained with softmax
// cross-entropy and plain gradient descent. Gradients are written by hand
// with the ops a TensorFlow gradient function would emit (MatMul with
// transposes, ReluGrad, Sum), and the update ops run after every gradient
// is computed.
//
//   build/bin/train_mlp [--steps=300] [--learning_rate=0.5] [--print_every=20]
//
// Prints "step <n> loss <value>" every few steps, then the final accuracy.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "ops/standard_ops.h"
#include "session/session.h"

namespace minitf {
namespace {

constexpr int kFeatures = 2;
constexpr int kHidden = 32;
constexpr int kClasses = 3;
constexpr int kExamples = 512;

struct Flags {
  int steps = 300;
  float learning_rate = 0.5f;
  int print_every = 20;
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
    }
    if (!ok) {
      std::fprintf(stderr, "bad flag '%s'\nusage: %s [--steps=N] [--learning_rate=F] "
                   "[--print_every=N]\n", argv[i], argv[0]);
      return false;
    }
  }
  return true;
}

// Points uniformly in a disc of radius 3; label = ring (radius < 1, < 2, else).
void MakeData(Tensor* x, Tensor* labels) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> coord(-3.0f, 3.0f);
  *x = Tensor(DT_FLOAT, TensorShape({kExamples, kFeatures}));
  *labels = Tensor(DT_INT32, TensorShape({kExamples}));
  auto xm = x->matrix<float>();
  auto lv = labels->vec<int32_t>();
  for (int i = 0; i < kExamples;) {
    const float a = coord(rng), b = coord(rng);
    const float r = std::sqrt(a * a + b * b);
    if (r >= 3.0f) continue;
    xm(i, 0) = a;
    xm(i, 1) = b;
    lv(i) = r < 1.2f ? 0 : (r < 2.2f ? 1 : 2);
    ++i;
  }
}

struct Model {
  GraphDef graph;
  std::string init, train, loss, logits;
};

absl::StatusOr<Model> BuildModel(float learning_rate) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {-1, kFeatures}});
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32, {.shape = {-1}});

  auto w1 = ops::Variable(root.WithOpName("w1"), TensorShape({kFeatures, kHidden}), DT_FLOAT);
  auto b1 = ops::Variable(root.WithOpName("b1"), TensorShape({kHidden}), DT_FLOAT);
  auto w2 = ops::Variable(root.WithOpName("w2"), TensorShape({kHidden, kClasses}), DT_FLOAT);
  auto b2 = ops::Variable(root.WithOpName("b2"), TensorShape({kClasses}), DT_FLOAT);

  // Initialization: scaled normal weights, zero biases.
  Scope init = root.NewSubScope("init");
  auto normal = [&](std::vector<int> dims, float scale, int seed) {
    return ops::Mul(init, ops::RandomStandardNormal(init, Input(Tensor::FromVector<int32_t>(
                                                        absl::Span<const int32_t>(dims),
                                                        TensorShape({static_cast<int64_t>(dims.size())}))),
                                                    DT_FLOAT, {.seed = seed}),
                    scale);
  };
  auto zeros = [&](int n) { return ops::Fill(init, {n}, 0.0f); };
  std::vector<Output> assigns = {
      ops::Assign(init, w1, normal({kFeatures, kHidden}, 1.0f, 1)),
      ops::Assign(init, b1, zeros(kHidden)),
      ops::Assign(init, w2, normal({kHidden, kClasses}, 0.3f, 2)),
      ops::Assign(init, b2, zeros(kClasses)),
  };
  auto init_op = ops::NoOp(root.WithOpName("init").WithControlDependencies(assigns));

  // Forward pass.
  auto h_pre = ops::BiasAdd(root, ops::MatMul(root, x, w1), b1);
  auto h = ops::Relu(root, h_pre);
  auto logits = ops::BiasAdd(root.WithOpName("logits"), ops::MatMul(root, h, w2), b2);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
  auto loss = ops::Mean(root.WithOpName("loss"), xent.loss, {0});

  // Backward pass: d(mean loss)/d(logits) = backprop / batch.
  Scope grad = root.NewSubScope("gradients");
  auto batch = ops::Cast(grad, ops::Shape(grad, labels), DT_FLOAT);
  auto dlogits = ops::Div(grad, xent.backprop, batch);
  auto dw2 = ops::MatMul(grad, h, dlogits, {.transpose_a = true});
  auto db2 = ops::Sum(grad, dlogits, {0});
  auto dh = ops::MatMul(grad, dlogits, w2, {.transpose_b = true});
  auto dh_pre = ops::ReluGrad(grad, dh, h_pre);
  auto dw1 = ops::MatMul(grad, x, dh_pre, {.transpose_a = true});
  auto db1 = ops::Sum(grad, dh_pre, {0});

  // Updates, after every gradient has read the weights.
  Scope update = root.NewSubScope("update").WithControlDependencies({dw1, db1, dw2, db2});
  std::vector<Output> updates = {
      ops::ApplyGradientDescent(update, w1, learning_rate, dw1),
      ops::ApplyGradientDescent(update, b1, learning_rate, db1),
      ops::ApplyGradientDescent(update, w2, learning_rate, dw2),
      ops::ApplyGradientDescent(update, b2, learning_rate, db2),
  };
  auto train_op = ops::NoOp(root.WithOpName("train").WithControlDependencies(updates));

  Model model;
  if (absl::Status s = root.ToGraphDef(&model.graph); !s.ok()) return s;
  model.init = init_op.node_name();
  model.train = train_op.node_name();
  model.loss = loss.name();
  model.logits = logits.name();
  return model;
}

int Main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, &flags)) return 2;
  absl::StatusOr<Model> model = BuildModel(flags.learning_rate);
  if (!model.ok()) {
    std::fprintf(stderr, "building the model failed: %s\n", model.status().ToString().c_str());
    return 1;
  }
  absl::StatusOr<std::unique_ptr<Session>> session = NewSession(SessionOptions());
  if (!session.ok()) {
    std::fprintf(stderr, "NewSession: %s\n", session.status().ToString().c_str());
    return 1;
  }
  auto check = [](const absl::Status& s, const char* what) {
    if (s.ok()) return true;
    std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    return false;
  };
  if (!check((*session)->Create(model->graph), "Create")) return 1;
  if (!check((*session)->Run({}, {}, {model->init}, nullptr), "init")) return 1;

  Tensor x, labels;
  MakeData(&x, &labels);
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", x}, {"labels", labels}};
  std::vector<Tensor> out;
  for (int step = 0; step <= flags.steps; ++step) {
    const bool report = step % flags.print_every == 0 || step == flags.steps;
    if (step == flags.steps) {
      if (!check((*session)->Run(feeds, {model->loss}, {}, &out), "eval")) return 1;
    } else if (!check((*session)->Run(feeds, report ? std::vector<std::string>{model->loss}
                                                     : std::vector<std::string>{},
                                      {model->train}, &out),
                      "train step")) {
      return 1;
    }
    if (report) std::printf("step %d loss %.4f\n", step, out[0].scalar<float>()());
  }
  if (!check((*session)->Run(feeds, {model->logits}, {}, &out), "predict")) return 1;
  int correct = 0;
  auto logits = out[0].matrix<float>();
  for (int i = 0; i < kExamples; ++i) {
    int best = 0;
    for (int c = 1; c < kClasses; ++c) {
      if (logits(i, c) > logits(i, best)) best = c;
    }
    correct += best == labels.vec<int32_t>()(i);
  }
  std::printf("accuracy %.3f on %d examples\n", static_cast<double>(correct) / kExamples,
              kExamples);
  return 0;
}

}  // namespace
}  // namespace minitf

int main(int argc, char** argv) { return minitf::Main(argc, argv); }
