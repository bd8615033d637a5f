// Optimizers and variables in the C++ API: each optimizer's first steps
// against its formula, on ref and resource variables, and their errors.
#include "ops/cc/optimizers.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/variables.h"
#include "ops/standard_ops.h"
#include "session/session.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

// loss = sum((w - target)^2) over a variable w starting at `start`: its
// gradient is 2 (w - target).
struct Quadratic {
  explicit Quadratic(bool resource = false) {
    Input start(Tensor::FromVector<float>({1.0f, -2.0f}, TensorShape({2})));
    if (resource) {
      w = ops::NewResourceVariable(root.WithOpName("w"), {2}, DT_FLOAT, start);
      value = ops::ReadVariableOp(root, w, DT_FLOAT);
    } else {
      w = ops::NewVariable(root.WithOpName("w"), {2}, DT_FLOAT, start);
      value = w;
    }
    loss = ops::Sum(root, ops::Square(root, ops::Sub(root, value, {3.0f, 1.0f})), {0});
  }

  // Initialises, runs `steps` train steps, and returns w.
  std::vector<float> Train(const Output& train, int steps) {
    auto init = ops::GlobalVariablesInitializer(root);
    GraphDef graph;
    EXPECT_TRUE(root.ToGraphDef(&graph).ok()) << root.status();
    SessionOptions options;
    options.config.device_count = {{"GPU", 0}};
    session = *NewSession(options);
    EXPECT_TRUE(session->Create(graph).ok());
    EXPECT_TRUE(session->Run({}, {}, {init.node_name()}, nullptr).ok());
    for (int i = 0; i < steps; ++i) {
      absl::Status s = session->Run({}, {}, {train.node_name()}, nullptr);
      EXPECT_TRUE(s.ok()) << s;
    }
    std::vector<Tensor> out;
    EXPECT_TRUE(session->Run({}, {value.name()}, {}, &out).ok());
    return {out[0].data<float>()[0], out[0].data<float>()[1]};
  }

  Scope root = Scope::NewRootScope();
  Output w, value, loss;
  std::unique_ptr<Session> session;
};

TEST(OptimizersTest, GradientDescentStep) {
  for (bool resource : {false, true}) {
    Quadratic q(resource);
    Output train;
    ops::GradientDescentOptimizer sgd({.learning_rate = 0.1f});
    ASSERT_TRUE(sgd.Minimize(q.root, q.loss, {}, &train).ok()) << q.root.status();
    // w - 0.1 * 2 (w - target) = 0.8 w + 0.2 target
    EXPECT_THAT(q.Train(train, 1), ::testing::ElementsAre(::testing::FloatEq(0.8f + 0.6f),
                                                          ::testing::FloatEq(-1.6f + 0.2f)))
        << (resource ? "resource" : "ref");
  }
}

TEST(OptimizersTest, MomentumTwoSteps) {
  for (bool resource : {false, true}) {
    Quadratic q(resource);
    Output train;
    ops::MomentumOptimizer momentum({.learning_rate = 0.1f, .momentum = 0.5f});
    ASSERT_TRUE(momentum.Minimize(q.root, q.loss, {q.w}, &train).ok()) << q.root.status();
    float w[2] = {1.0f, -2.0f};
    const float target[2] = {3.0f, 1.0f};
    float accum[2] = {0, 0};
    for (int step = 0; step < 2; ++step) {
      for (int i = 0; i < 2; ++i) {
        accum[i] = 0.5f * accum[i] + 2 * (w[i] - target[i]);
        w[i] -= 0.1f * accum[i];
      }
    }
    EXPECT_THAT(q.Train(train, 2),
                ::testing::ElementsAre(::testing::FloatEq(w[0]), ::testing::FloatEq(w[1])));
  }
}

TEST(OptimizersTest, AdamStepsAndItsBetaPowers) {
  for (bool resource : {false, true}) {
    Quadratic q(resource);
    Output train;
    const ops::AdamOptions o{.learning_rate = 0.01f};
    ops::AdamOptimizer adam(o);
    ASSERT_TRUE(adam.Minimize(q.root, q.loss, {}, &train).ok()) << q.root.status();
    double w[2] = {1.0, -2.0}, m[2] = {0, 0}, v[2] = {0, 0};
    const double target[2] = {3.0, 1.0};
    for (int t = 1; t <= 3; ++t) {
      const double lr = o.learning_rate * std::sqrt(1 - std::pow(o.beta2, t)) /
                        (1 - std::pow(o.beta1, t));
      for (int i = 0; i < 2; ++i) {
        const double g = 2 * (w[i] - target[i]);
        m[i] = o.beta1 * m[i] + (1 - o.beta1) * g;
        v[i] = o.beta2 * v[i] + (1 - o.beta2) * g * g;
        w[i] -= lr * m[i] / (std::sqrt(v[i]) + o.epsilon);
      }
    }
    EXPECT_THAT(q.Train(train, 3), ::testing::ElementsAre(::testing::FloatNear(w[0], 1e-5),
                                                          ::testing::FloatNear(w[1], 1e-5)));
    std::vector<Tensor> powers;
    ASSERT_TRUE(q.session->Run({}, {"Adam/beta1_power", "Adam/beta2_power"}, {}, &powers).ok());
    EXPECT_FLOAT_EQ(powers[0].data<float>()[0], std::pow(o.beta1, 4.0f));
    EXPECT_FLOAT_EQ(powers[1].data<float>()[0], std::pow(o.beta2, 4.0f));
  }
}

TEST(OptimizersTest, SlotsAreVariablesBesideTheirVariable) {
  Quadratic q;
  Output train;
  ops::AdamOptimizer adam({});
  ASSERT_TRUE(adam.Minimize(q.root, q.loss, {}, &train).ok());
  EXPECT_NE(q.root.FindNode("w/Adam"), nullptr);
  EXPECT_NE(q.root.FindNode("w/Adam_1"), nullptr);
  // Only w is trainable; the slots and beta powers are global variables.
  EXPECT_EQ(ops::TrainableVariables(q.root).size(), 1u);
  EXPECT_EQ(ops::GlobalVariables(q.root).size(), 5u);
}

TEST(OptimizersTest, AVariableTheLossDoesNotUseIsAnErrorNamingIt) {
  Quadratic q;
  auto other = ops::NewVariable(q.root.WithOpName("other"), {1}, DT_FLOAT, {0.0f});
  Output train;
  ops::GradientDescentOptimizer sgd({.learning_rate = 0.1f});
  absl::Status s = sgd.Minimize(q.root, q.loss, {q.w, other}, &train);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("does not depend on variable 'other'"));
}

TEST(OptimizersTest, NoVariablesIsAnError) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output train;
  ops::GradientDescentOptimizer sgd({});
  absl::Status s = sgd.Minimize(root, ops::Square(root, x), {}, &train);
  EXPECT_THAT(s.message(), HasSubstr("no variables to optimize"));
}

}  // namespace
}  // namespace minitf
