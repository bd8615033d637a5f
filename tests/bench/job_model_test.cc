// Harness job models: the spec's sizes reach the model and the batch;
// unknown parameters and bad sizes are errors naming the job.
#include "bench/harness/job_model.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

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
  EXPECT_EQ(m->batch.x.shape(), TensorShape({5, 8, 8, 1}));
  EXPECT_EQ(m->batch.labels.shape(), TensorShape({5}));
  EXPECT_FALSE(m->model.graph.node.empty());
  for (const NodeDef& n : m->model.graph.node) EXPECT_EQ(n.device, "/device:GPU:0") << n.name;
}

TEST(JobModelTest, MlpTakesItsSizesFromTheSpec) {
  absl::StatusOr<JobModel> m = BuildJobModel(Spec("mlp", {{"features", 16}, {"hidden", 8}}, 7));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->batch.x.shape(), TensorShape({7, 16}));
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

}  // namespace
}  // namespace minitf::harness
