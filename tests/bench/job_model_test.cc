// Harness job models (mlp, cnn, transformer): the spec's sizes reach the
// model and the batch, a transformer job trains a step on SimGPU; unknown
// models, unknown parameters and bad sizes are errors naming the job.
#include "bench/harness/jobs/job_model.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "session/session.h"

namespace minitf::harness {
namespace {

using ::testing::HasSubstr;

JobSpec Spec(const std::string& model, std::map<std::string, int64_t> params, int batch) {
  JobSpec spec;
  spec.name = "j";
  spec.model = model;
  spec.model_params = std::move(params);
  spec.batch_size = batch;
  return spec;
}

TEST(JobModelTest, CnnTakesItsSizesFromTheSpec) {
  absl::StatusOr<JobModel> m = BuildJobModel(Spec("cnn", {{"image_size", 8}, {"channels", 4}}, 5));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->feeds[0].second.shape(), TensorShape({5, 8, 8, 1}));
  EXPECT_EQ(m->feeds[1].second.shape(), TensorShape({5}));
  EXPECT_FALSE(m->graph.node.empty());
  for (const NodeDef& n : m->graph.node) EXPECT_EQ(n.device, "/device:GPU:0") << n.name;
}

TEST(JobModelTest, MlpTakesItsSizesFromTheSpec) {
  absl::StatusOr<JobModel> m = BuildJobModel(Spec("mlp", {{"features", 16}, {"hidden", 8}}, 7));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->feeds[0].second.shape(), TensorShape({7, 16}));
}

TEST(JobModelTest, UnknownParametersAndBadSizesNameTheJob) {
  absl::StatusOr<JobModel> m = BuildJobModel(Spec("cnn", {{"layers", 4}}, 5));
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("job 'j'"));
  EXPECT_THAT(m.status().message(), HasSubstr("'layers'"));
  m = BuildJobModel(Spec("cnn", {{"image_size", 7}}, 5));
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("job 'j'"));
  m = BuildJobModel(Spec("cnn", {{"classes", 10}}, 5));
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("classes"));
}

// In functional mode the step computes a real loss; in timing mode (what
// scenarios use) the arithmetic is skipped but the step still runs.
TEST(JobModelTest, TransformerTakesItsSizesFromTheSpecAndTrainsAStepOnTheGpu) {
  absl::StatusOr<JobModel> m = BuildJobModel(
      Spec("transformer", {{"seq_len", 6}, {"d_model", 16}, {"heads", 2}, {"hidden", 32}}, 4));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->feeds[0].second.shape(), TensorShape({4, 6, 16}));
  EXPECT_EQ(m->feeds[1].second.shape(), TensorShape({4}));
  for (const NodeDef& n : m->graph.node) EXPECT_EQ(n.device, "/device:GPU:0") << n.name;

  for (const std::string mode : {"functional", "timing"}) {
    SCOPED_TRACE(mode);
    SessionOptions options;
    options.config.intra_op_parallelism_threads = 2;
    options.config.inter_op_parallelism_threads = 2;
    options.config.gpu_options.platform = "SimGPU";
    options.config.gpu_options.simgpu_options = "memory=256MiB,mode=" + mode;
    // As the harness's jobs: ops the GPU has no kernel for run on the CPU.
    options.config.allow_soft_placement = true;
    absl::StatusOr<std::unique_ptr<Session>> session = NewSession(options);
    ASSERT_TRUE(session.ok()) << session.status();
    ASSERT_TRUE((*session)->Create(m->graph).ok());
    ASSERT_TRUE((*session)->Run({}, {}, {m->init}, nullptr).ok());
    std::vector<Tensor> out;
    absl::Status step =
        (*session)->Run(m->feeds, {m->loss}, {m->train}, &out);
    ASSERT_TRUE(step.ok()) << step;
    ASSERT_EQ(out.size(), 1u);
    if (mode == "functional") {
      EXPECT_TRUE(std::isfinite(out[0].scalar<float>()())) << out[0].DebugString();
    }
  }
}

TEST(JobModelTest, TransformerUnknownParametersAndHeadsNotDividingDModelNameTheJob) {
  absl::StatusOr<JobModel> m = BuildJobModel(Spec("transformer", {{"layers", 2}}, 4));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("job 'j'"));
  EXPECT_THAT(m.status().message(), HasSubstr("'layers'"));
  m = BuildJobModel(Spec("transformer", {{"d_model", 64}, {"heads", 5}}, 4));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("job 'j'"));
  EXPECT_THAT(m.status().message(), HasSubstr("d_model (64) must be divisible by heads (5)"));
}

TEST(JobModelTest, UnknownModelNamesTheJob) {
  absl::StatusOr<JobModel> m = BuildJobModel(Spec("rnn", {}, 4));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("job 'j'"));
  EXPECT_THAT(m.status().message(), HasSubstr("'rnn'"));
}

}  // namespace
}  // namespace minitf::harness
