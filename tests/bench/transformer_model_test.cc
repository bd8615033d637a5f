// The transformer model of bench/models: its hand-written gradients agree
// with finite differences of the loss for every variable, training lowers
// the loss, SimGPU training gives the CPU's losses, the synthetic sequences
// are deterministic, and bad configs are rejected naming the field.
#include "bench/models/transformer_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "session/session.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

SessionOptions CpuOptions() {
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 2;
  options.config.inter_op_parallelism_threads = 2;
  options.config.device_count["GPU"] = 0;
  return options;
}

SessionOptions SimGPUOptions() {
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 2;
  options.config.inter_op_parallelism_threads = 2;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = "memory=256MiB,mode=functional";
  // The model asks for the GPU; ops CUDA has no kernel for run on the CPU.
  options.config.allow_soft_placement = true;
  return options;
}

std::unique_ptr<Session> CreateSession(const SessionOptions& options, const GraphDef& graph) {
  auto session = NewSession(options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return nullptr;
  absl::Status s = (*session)->Create(graph);
  EXPECT_TRUE(s.ok()) << s;
  return *std::move(session);
}

// Initialises the variables and runs `steps` training steps, returning the
// loss before each step and after the last.
std::vector<float> Train(Session* session, const TrainingModel& model, const Batch& batch,
                         int steps) {
  absl::Status init = session->Run({}, {}, {model.init}, nullptr);
  EXPECT_TRUE(init.ok()) << init;
  std::vector<float> losses;
  std::vector<Tensor> out;
  for (int i = 0; i <= steps; ++i) {
    std::vector<std::string> targets;
    if (i < steps) targets.push_back(model.train);
    absl::Status s = session->Run(batch.Feeds(model), {model.loss}, targets, &out);
    EXPECT_TRUE(s.ok()) << "step " << i << ": " << s;
    if (!s.ok()) break;
    losses.push_back(out[0].scalar<float>()());
  }
  return losses;
}

TEST(TransformerModelTest, ThirtyStepsOnTheCpuLowerTheLoss) {
  const TransformerConfig config;  // The harness's sizes.
  auto model = BuildTransformerModel(config);
  ASSERT_TRUE(model.ok()) << model.status();
  std::unique_ptr<Session> session = CreateSession(CpuOptions(), model->graph);
  ASSERT_NE(session, nullptr);
  const std::vector<float> losses = Train(
      session.get(), *model, MakeSequenceBatch(config, /*batch_size=*/48, /*seed=*/1).value(), 30);
  ASSERT_EQ(losses.size(), 31u);
  // Chance for 3 classes is ln 3 = 1.10.
  EXPECT_GT(losses.front(), 0.8f);
  EXPECT_LT(losses.back(), losses.front() / 2);
  EXPECT_LT(*std::max_element(losses.begin() + 20, losses.end()), losses.front());
}

TEST(TransformerModelTest, LogitsHaveOneColumnPerClass) {
  TransformerConfig config;
  config.seq_len = 5;
  config.classes = 4;
  auto model = BuildTransformerModel(config);
  ASSERT_TRUE(model.ok()) << model.status();
  std::unique_ptr<Session> session = CreateSession(CpuOptions(), model->graph);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {model->init}, nullptr).ok());
  const Batch batch = MakeSequenceBatch(config, 7, 2).value();
  std::vector<Tensor> out;
  absl::Status s = session->Run(batch.Feeds(*model), {model->logits}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].shape(), TensorShape({7, 4}));
}

// ---------------------------------------------------------------------------
// Gradient check: central differences of the loss, (L(w + e) - L(w - e)) / 2e,
// against the graph's gradient tensors, for up to three entries of every
// variable (the one with the largest gradient, the first and the last), at
// the initial weights and again after a few steps. The two agree to about
// 1e-5 here; a wrong term (the softmax's row sum left out, a key gradient
// without its adjoint) is off by far more than the tolerance.

constexpr float kStep = 1e-2f;

// Adds, for every variable v, a placeholder check/v/value, an Assign of it
// to v (check/v/assign) and a read of v (check/v/read).
void AddCheckNodes(GraphDef* graph) {
  Scope check = Scope::NewRootScope().NewSubScope("check");
  for (const std::string& name : TransformerVariableNames()) {
    Scope s = check.NewSubScope(name);
    const Output var(name, 0, MakeRefType(DT_FLOAT));
    auto value = ops::Placeholder(s.WithOpName("value"), DT_FLOAT);
    ops::Assign(s.WithOpName("assign"), var, value);
    ops::Identity(s.WithOpName("read"), var);
  }
  GraphDef extra;
  ASSERT_TRUE(check.ToGraphDef(&extra).ok()) << check.status();
  graph->node.insert(graph->node.end(), extra.node.begin(), extra.node.end());
}

class GradientCheck {
 public:
  GradientCheck(Session* session, const TrainingModel& model, const Batch& batch)
      : session_(session), model_(model), batch_(batch) {}

  float Loss() {
    std::vector<Tensor> out;
    absl::Status s = session_->Run(batch_.Feeds(model_), {model_.loss}, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? out[0].scalar<float>()() : NAN;
  }

  Tensor Fetch(const std::string& tensor) {
    std::vector<Tensor> out;
    absl::Status s = session_->Run(batch_.Feeds(model_), {tensor}, {}, &out);
    EXPECT_TRUE(s.ok()) << tensor << ": " << s;
    return s.ok() ? out[0] : Tensor();
  }

  void Set(const std::string& var, const Tensor& value) {
    absl::Status s = session_->Run({{"check/" + var + "/value", value}}, {},
                                   {"check/" + var + "/assign"}, nullptr);
    EXPECT_TRUE(s.ok()) << var << ": " << s;
  }

  // The loss with entry `i` of `var` (now `value`) moved by `delta`.
  float LossWithEntryMoved(const std::string& var, const Tensor& value, int64_t i, float delta) {
    Tensor moved = value.DeepCopy();
    moved.flat<float>()(i) += delta;
    Set(var, moved);
    const float loss = Loss();
    Set(var, value);
    return loss;
  }

  // Compares the graph's gradient of every variable with central differences.
  void ExpectGradientsMatchFiniteDifferences() {
    for (const std::string& var : TransformerVariableNames()) {
      SCOPED_TRACE(var);
      // A copy: the read shares the variable's buffer, which Set overwrites.
      const Tensor value = Fetch("check/" + var + "/read").DeepCopy();
      const Tensor grad = Fetch(model_.gradients.at(var));
      ASSERT_EQ(grad.shape(), value.shape());
      auto g = grad.flat<float>();
      int64_t largest = 0;
      for (int64_t i = 0; i < g.size(); ++i) {
        if (std::abs(g(i)) > std::abs(g(largest))) largest = i;
      }
      // A variable whose gradient is all but zero would check nothing.
      EXPECT_GT(std::abs(g(largest)), 1e-3f);
      auto tolerance = [](float numeric) { return 2e-4 + 0.01 * std::abs(numeric); };
      const float loss = Loss();
      // Forward minus backward difference over `step`: about step * L''
      // where the loss is smooth, a jump of the slope where it has a kink.
      auto one_sided_gap = [&](int64_t i, float step) {
        const float up = LossWithEntryMoved(var, value, i, step);
        const float down = LossWithEntryMoved(var, value, i, -step);
        return ((up - loss) - (loss - down)) / step;
      };
      // The largest entry, the first and the last, then the others in order,
      // until three are checked. An entry within a step of a kink (a ReLU
      // or a max changing side for some example, or sitting on its corner)
      // has no derivative there for differences to approach. Where the loss
      // is smooth, halving the step halves the gap between the one-sided
      // differences; where it is not, it does not, and the entry is passed
      // over.
      std::vector<int64_t> candidates = {largest, 0, g.size() - 1};
      for (int64_t i = 1; i + 1 < g.size(); ++i) {
        if (i != largest) candidates.push_back(i);
      }
      std::set<int64_t> checked;
      for (int64_t i : candidates) {
        if (checked.size() == 3 || checked.contains(i)) continue;
        const float numeric =
            (LossWithEntryMoved(var, value, i, kStep) - LossWithEntryMoved(var, value, i, -kStep)) /
            (2 * kStep);
        const float gap = one_sided_gap(i, kStep);
        if (std::abs(one_sided_gap(i, kStep / 2) - gap / 2) > tolerance(numeric)) continue;
        EXPECT_NEAR(g(i), numeric, tolerance(numeric)) << "entry " << i;
        checked.insert(i);
      }
      EXPECT_EQ(checked.size(), std::min<size_t>(3, g.size())) << "entries away from kinks";
    }
  }

 private:
  Session* const session_;
  const TrainingModel& model_;
  const Batch& batch_;
};

TEST(TransformerModelTest, HandWrittenGradientsMatchFiniteDifferences) {
  TransformerConfig config;
  config.seq_len = 4;
  config.d_model = 8;
  config.heads = 2;
  config.hidden = 6;
  config.classes = 3;
  config.learning_rate = 0.2f;
  auto model = BuildTransformerModel(config);
  ASSERT_TRUE(model.ok()) << model.status();
  AddCheckNodes(&model->graph);
  std::unique_ptr<Session> session = CreateSession(CpuOptions(), model->graph);
  ASSERT_NE(session, nullptr);
  const Batch batch = MakeSequenceBatch(config, /*batch_size=*/6, /*seed=*/3).value();
  ASSERT_TRUE(session->Run({}, {}, {model->init}, nullptr).ok());
  GradientCheck check(session.get(), *model, batch);
  {
    SCOPED_TRACE("initial weights");
    check.ExpectGradientsMatchFiniteDifferences();
  }
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(session->Run(batch.Feeds(*model), {}, {model->train}, nullptr).ok());
  }
  {
    SCOPED_TRACE("after 5 steps");
    check.ExpectGradientsMatchFiniteDifferences();
  }
}

// ---------------------------------------------------------------------------

TEST(TransformerModelTest, SimGpuTrainingGivesTheCpuLosses) {
  TransformerConfig config;
  config.seq_len = 8;
  config.d_model = 32;
  config.hidden = 64;
  const Batch batch = MakeSequenceBatch(config, /*batch_size=*/16, /*seed=*/5).value();
  auto cpu_model = BuildTransformerModel(config);
  ASSERT_TRUE(cpu_model.ok()) << cpu_model.status();
  config.device = "/device:GPU:0";
  auto gpu_model = BuildTransformerModel(config);
  ASSERT_TRUE(gpu_model.ok()) << gpu_model.status();

  std::unique_ptr<Session> cpu = CreateSession(CpuOptions(), cpu_model->graph);
  std::unique_ptr<Session> gpu = CreateSession(SimGPUOptions(), gpu_model->graph);
  ASSERT_NE(cpu, nullptr);
  ASSERT_NE(gpu, nullptr);
  const std::vector<float> cpu_losses = Train(cpu.get(), *cpu_model, batch, 8);
  const std::vector<float> gpu_losses = Train(gpu.get(), *gpu_model, batch, 8);
  ASSERT_EQ(gpu_losses.size(), cpu_losses.size());
  for (size_t i = 0; i < cpu_losses.size(); ++i) {
    EXPECT_NEAR(gpu_losses[i], cpu_losses[i], 1e-5 + 1e-4 * std::abs(cpu_losses[i]))
        << "step " << i;
  }
  EXPECT_LT(gpu_losses.back(), gpu_losses.front());

  // The attention ops ran on the GPU.
  RunOptions traced;
  traced.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE(gpu->Run(traced, batch.Feeds(*gpu_model), {gpu_model->loss}, {gpu_model->train}, &out,
                       &metadata)
                  .ok());
  std::map<std::string, int> gpu_ops;
  for (const DeviceStepStats& dev : metadata.step_stats.dev_stats) {
    if (!absl::StrContains(dev.device, "GPU:0")) continue;
    for (const NodeExecStats& n : dev.node_stats) {
      for (const NodeDef& node : gpu_model->graph.node) {
        if (node.name == n.node_name) ++gpu_ops[node.op];
      }
    }
  }
  EXPECT_EQ(gpu_ops["BatchMatMul"], 6);  // 2 forward, 4 backward
  EXPECT_EQ(gpu_ops["Transpose"], 8);    // splits q, k, v, dmixed; merges mixed, dq, dk, dv
}

TEST(TransformerModelTest, RejectsBadConfigsNamingTheField) {
  struct Bad {
    TransformerConfig config;
    std::string says;
  };
  std::vector<Bad> bad(5);
  bad[0].config.heads = 5;
  bad[0].says = "d_model (64) must be divisible by heads (5)";
  bad[1].config.seq_len = 0;
  bad[1].says = "seq_len must be positive";
  bad[2].config.hidden = -1;
  bad[2].says = "hidden must be positive";
  bad[3].config.heads = 0;
  bad[3].says = "heads must be positive";
  bad[4].config.classes = 1;
  bad[4].says = "classes must be at least 2";
  for (const Bad& b : bad) {
    auto model = BuildTransformerModel(b.config);
    ASSERT_FALSE(model.ok()) << b.says;
    EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(model.status().message(), HasSubstr(b.says));
  }
}

// The position of sequence `b` of `x` [B,T,D] that carries the marker: the
// only one whose norm exceeds what noise alone reaches (marker positions
// have norm about 9, noise-only ones about 4).
int MarkerPosition(const Tensor& x, int b) {
  auto v = x.tensor<float, 3>();
  int found = -1;
  for (int t = 0; t < v.dimension(1); ++t) {
    float norm2 = 0;
    for (int j = 0; j < v.dimension(2); ++j) norm2 += v(b, t, j) * v(b, t, j);
    if (norm2 < 6.5f * 6.5f) continue;
    EXPECT_EQ(found, -1) << "sequence " << b << " has two loud positions";
    found = t;
  }
  EXPECT_GE(found, 0) << "sequence " << b << " has no marker";
  return found;
}

TEST(TransformerDataTest, SequencesAreDeterministicPerSeedWithOneMarkerOfTheLabel) {
  TransformerConfig config;
  const Batch a = MakeSequenceBatch(config, 9, 5).value(),
              b = MakeSequenceBatch(config, 9, 5).value(),
              c = MakeSequenceBatch(config, 9, 6).value();
  EXPECT_EQ(a.x.shape(), TensorShape({9, 16, 64}));
  EXPECT_EQ(a.x.DebugString(100), b.x.DebugString(100));
  EXPECT_NE(a.x.DebugString(100), c.x.DebugString(100));
  EXPECT_EQ(a.labels.DebugString(), c.labels.DebugString());
  for (int i = 0; i < 9; ++i) EXPECT_EQ(a.labels.vec<int32_t>()(i), i % 3);
  // The marker of a class is the same for every seed: the loud positions of
  // two sequences of one class nearly agree (a dot product near 64), those
  // of different classes do not.
  auto xa = a.x.tensor<float, 3>();
  auto xc = c.x.tensor<float, 3>();
  for (int i = 0; i < 9; ++i) {
    const int pa = MarkerPosition(a.x, i);
    for (int k = 0; k < 9; ++k) {
      const int pc = MarkerPosition(c.x, k);
      if (pa < 0 || pc < 0) continue;
      float dot = 0;
      for (int j = 0; j < 64; ++j) dot += xa(i, pa, j) * xc(k, pc, j);
      if (i % 3 == k % 3) {
        EXPECT_GT(dot, 40.0f) << i << " " << k;
      } else {
        EXPECT_LT(dot, 40.0f) << i << " " << k;
      }
    }
  }
}

}  // namespace
}  // namespace minitf
