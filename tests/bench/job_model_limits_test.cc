// Harness job models at the edges of what a scenario may ask for (each
// model parameter in 1..2^20, batch_size in 1..65536): small sizes either
// train a step or are InvalidArgument naming the parameter; sizes that
// cannot be represented are InvalidArgument, and sizes that do not fit in
// memory are ResourceExhausted naming what did not fit. Nothing crashes.
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/harness/jobs/job_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platform/status_macros.h"
#include "session/session.h"

namespace minitf::harness {
namespace {

using ::testing::HasSubstr;

struct ModelSizes {
  std::string model;
  std::map<std::string, int64_t> params;  // every parameter, all small
};

const std::vector<ModelSizes>& SmallModels() {
  static const auto* models = new std::vector<ModelSizes>{
      {"mlp", {{"features", 3}, {"hidden", 4}, {"classes", 3}}},
      {"cnn", {{"image_size", 4}, {"channels", 2}, {"classes", 3}}},
      {"transformer",
       {{"seq_len", 3}, {"d_model", 4}, {"heads", 2}, {"hidden", 4}, {"classes", 3}}},
  };
  return *models;
}

JobSpec Spec(const std::string& model, std::map<std::string, int64_t> params, int batch) {
  JobSpec spec;
  spec.name = "j";
  spec.model = model;
  spec.model_params = std::move(params);
  spec.batch_size = batch;
  return spec;
}

// Initialises the job's variables and runs one training step on a SimGPU
// configured by `simgpu`; in functional mode the loss must be finite.
absl::Status TrainOneStep(const JobModel& m, const std::string& simgpu) {
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 1;
  options.config.inter_op_parallelism_threads = 1;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = simgpu;
  // As the harness's jobs: ops the GPU has no kernel for run on the CPU.
  options.config.allow_soft_placement = true;
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(options));
  MINITF_RETURN_IF_ERROR(session->Create(m.graph));
  MINITF_RETURN_IF_ERROR(session->Run({}, {}, {m.init}, nullptr));
  std::vector<Tensor> out;
  MINITF_RETURN_IF_ERROR(
      session->Run(m.feeds, {m.loss}, {m.train}, &out));
  if (simgpu.find("functional") != std::string::npos &&
      !std::isfinite(out.at(0).scalar<float>()())) {
    return absl::InternalError(absl::StrCat("loss ", out[0].DebugString()));
  }
  return absl::OkStatus();
}

constexpr char kFunctional[] = "memory=256MiB,mode=functional";
// Timing mode skips the arithmetic; a GPU this fast models no time worth
// waiting for (a variable of 2^40 floats is a long write on a V100).
constexpr char kTiming[] = "memory=1GiB,mode=timing,tflops=1e9,hbm_gbps=1e12,pcie_gbps=1e12";

TEST(JobModelLimitsTest, EveryParameterAtOneTwoAndThreeTrainsAStepOrIsRejectedByName) {
  for (const ModelSizes& model : SmallModels()) {
    for (const auto& [name, small] : model.params) {
      for (int64_t value : {1, 2, 3}) {
        SCOPED_TRACE(absl::StrCat(model.model, " ", name, "=", value));
        std::map<std::string, int64_t> params = model.params;
        params[name] = value;
        absl::StatusOr<JobModel> m = BuildJobModel(Spec(model.model, params, 2));
        if (!m.ok()) {
          EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument) << m.status();
          EXPECT_THAT(m.status().message(), HasSubstr("job 'j'"));
          EXPECT_THAT(m.status().message(), HasSubstr(name));
          continue;
        }
        absl::Status step = TrainOneStep(*m, kFunctional);
        EXPECT_TRUE(step.ok()) << step;
      }
    }
  }
}

TEST(JobModelLimitsTest, BatchSizesOneTwoAndThreeTrainAStep) {
  for (const ModelSizes& model : SmallModels()) {
    for (int batch : {1, 2, 3}) {
      SCOPED_TRACE(absl::StrCat(model.model, " batch_size=", batch));
      absl::StatusOr<JobModel> m = BuildJobModel(Spec(model.model, model.params, batch));
      ASSERT_TRUE(m.ok()) << m.status();
      absl::Status step = TrainOneStep(*m, kFunctional);
      EXPECT_TRUE(step.ok()) << step;
    }
  }
}

// The smallest image the 2x2 max pool allows: bars drawn on a 2x2 image.
TEST(JobModelLimitsTest, CnnOfTwoPixelImagesTrainsAStep) {
  absl::StatusOr<JobModel> m = BuildJobModel(Spec("cnn", {{"image_size", 2}}, 3));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->feeds[0].second.shape(), TensorShape({3, 2, 2, 1}));
  absl::Status step = TrainOneStep(*m, kFunctional);
  EXPECT_TRUE(step.ok()) << step;
}

TEST(JobModelLimitsTest, OddOrTooSmallImagesAndHeadsNotDividingDModelNameTheRule) {
  absl::StatusOr<JobModel> m = BuildJobModel(Spec("cnn", {{"image_size", 1}}, 2));
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("image_size must be in 2.."));
  m = BuildJobModel(Spec("cnn", {{"image_size", 3}}, 2));
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("image_size must be even"));
  m = BuildJobModel(Spec("transformer", {{"d_model", 4}, {"heads", 3}}, 2));
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("d_model (4) must be divisible by heads (3)"));
}

TEST(JobModelLimitsTest, ValuesOutsideTheScenarioRangesNameTheRange) {
  absl::StatusOr<JobModel> m = BuildJobModel(Spec("mlp", {{"hidden", 0}}, 2));
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("job 'j'"));
  EXPECT_THAT(m.status().message(), HasSubstr("'hidden' must be in 1..1048576, got 0"));
  m = BuildJobModel(Spec("cnn", {{"channels", (int64_t{1} << 20) + 1}}, 2));
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("'channels' must be in 1..1048576"));
  m = BuildJobModel(Spec("mlp", {}, 0));
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("batch_size must be in 1..65536, got 0"));
}

// The dense layer's width, (image_size/2)^2 * channels, is an int32 in the
// graph; past 2^31-1 the model cannot be built.
TEST(JobModelLimitsTest, CnnWhoseDenseLayerIsTooWideIsInvalidArgumentNamingBothSizes) {
  absl::StatusOr<JobModel> m = BuildJobModel(Spec("cnn", {{"image_size", 65536}}, 4));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument) << m.status();
  EXPECT_THAT(m.status().message(), HasSubstr("job 'j'"));
  EXPECT_THAT(m.status().message(), HasSubstr("image_size 65536, channels 32"));
}

// Host memory cannot hold the batch: ResourceExhausted naming the feed and
// its shape. The batches are 1 PiB and 256 GiB: more than any machine that
// runs the suite holds, so the allocation fails at once instead of
// succeeding, slowly, on a large machine (a 64 GiB batch fits in 128 GiB).
TEST(JobModelLimitsTest, BatchTooBigForHostMemoryIsResourceExhaustedNamingFeedAndShape) {
  absl::StatusOr<JobModel> m =
      BuildJobModel(Spec("cnn", {{"image_size", 65536}, {"channels", 1}}, 65536));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kResourceExhausted) << m.status();
  EXPECT_THAT(m.status().message(), HasSubstr("job 'j'"));
  EXPECT_THAT(m.status().message(), HasSubstr("feed 'images'"));
  EXPECT_THAT(m.status().message(), HasSubstr("shape[65536,65536,65536,1]"));

  m = BuildJobModel(Spec("cnn", {{"image_size", 1024}}, 65536));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kResourceExhausted) << m.status();
  EXPECT_THAT(m.status().message(), HasSubstr("shape[65536,1024,1024,1]"));
}

// One parameter at 2^20, the others small: the job builds and runs, or
// fails with a status (the parameter's InvalidArgument, or the
// ResourceExhausted of the node that cannot get its memory).
TEST(JobModelLimitsTest, EveryParameterAtTwoToTheTwentiethRunsOrFailsWithAStatus) {
  for (const ModelSizes& model : SmallModels()) {
    for (const auto& [name, small] : model.params) {
      SCOPED_TRACE(absl::StrCat(model.model, " ", name, "=2^20"));
      std::map<std::string, int64_t> params = model.params;
      params[name] = kMaxModelParam;
      absl::StatusOr<JobModel> m = BuildJobModel(Spec(model.model, params, 1));
      if (!m.ok()) {
        EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument) << m.status();
        EXPECT_THAT(m.status().message(), HasSubstr(name));
        continue;
      }
      absl::Status step = TrainOneStep(*m, kTiming);
      if (step.ok()) continue;
      EXPECT_EQ(step.code(), absl::StatusCode::kResourceExhausted) << step;
      EXPECT_THAT(step.message(), HasSubstr("Node '"));
      EXPECT_THAT(step.message(), HasSubstr("OOM when allocating tensor with shape["));
    }
  }
}

}  // namespace
}  // namespace minitf::harness
