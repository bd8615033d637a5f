// The training models of bench/models: they build, their shapes are right,
// their synthetic data is deterministic, and a few steps of training lower
// the loss.
#include <memory>
#include <string>
#include <vector>

#include "bench/models/cnn_model.h"
#include "bench/models/mlp_model.h"
#include "gtest/gtest.h"
#include "session/session.h"

namespace minitf {
namespace {

// Initialises, runs `steps` training steps and returns {first, last} loss.
std::pair<float, float> Train(const TrainingModel& model, const Batch& batch, int steps) {
  auto session = NewSession(SessionOptions());
  EXPECT_TRUE(session.ok());
  EXPECT_TRUE((*session)->Create(model.graph).ok());
  EXPECT_TRUE((*session)->Run({}, {}, {model.init}, nullptr).ok());
  std::vector<Tensor> out;
  float first = 0, last = 0;
  for (int i = 0; i <= steps; ++i) {
    std::vector<std::string> targets;
    if (i < steps) targets.push_back(model.train);
    absl::Status s = (*session)->Run(batch.Feeds(model), {model.loss}, targets, &out);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) break;
    if (i == 0) first = out[0].scalar<float>()();
    last = out[0].scalar<float>()();
  }
  return {first, last};
}

TEST(MlpModelTest, TrainingHalvesTheLoss) {
  MlpConfig config;
  auto model = BuildMlpModel(config);
  ASSERT_TRUE(model.ok()) << model.status();
  const auto [first, last] = Train(*model, MakeRingsBatch(config, 256, 1).value(), 100);
  EXPECT_GT(first, 0.5f);
  EXPECT_LT(last, first / 2);
}

TEST(CnnModelTest, TrainingHalvesTheLossAndLogitsHaveClassColumns) {
  CnnConfig config;
  config.image_size = 8;
  config.channels = 4;
  auto model = BuildCnnModel(config);
  ASSERT_TRUE(model.ok()) << model.status();
  const Batch batch = MakeBarsBatch(config, 24, 3).value();
  const auto [first, last] = Train(*model, batch, 60);
  EXPECT_LT(last, first / 2);

  auto session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(model->graph).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {model->init}, nullptr).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run(batch.Feeds(*model), {model->logits}, {}, &out).ok());
  EXPECT_EQ(out[0].shape(), TensorShape({24, 3}));
}

TEST(CnnModelTest, RejectsOddImageSize) {
  CnnConfig config;
  config.image_size = 7;
  auto model = BuildCnnModel(config);
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ModelDataTest, BatchesAreDeterministicPerSeedAndLabelsInRange) {
  CnnConfig cnn;
  const Batch a = MakeBarsBatch(cnn, 9, 5).value(), b = MakeBarsBatch(cnn, 9, 5).value(),
              c = MakeBarsBatch(cnn, 9, 6).value();
  EXPECT_EQ(a.x.DebugString(100), b.x.DebugString(100));
  EXPECT_NE(a.x.DebugString(100), c.x.DebugString(100));
  MlpConfig mlp;
  const Batch r = MakeRingsBatch(mlp, 200, 1).value();
  for (int i = 0; i < 200; ++i) {
    EXPECT_GE(r.labels.vec<int32_t>()(i), 0);
    EXPECT_LT(r.labels.vec<int32_t>()(i), mlp.classes);
  }
}

TEST(ModelDataTest, AccuracyCountsArgmaxMatches) {
  Tensor logits = Tensor::FromVector<float>({1, 2, 0, 5, 3, 1}, TensorShape({3, 2}));
  Tensor labels = Tensor::FromVector<int32_t>({1, 1, 1});
  EXPECT_DOUBLE_EQ(Accuracy(logits, labels), 2.0 / 3.0);
}

}  // namespace
}  // namespace minitf
