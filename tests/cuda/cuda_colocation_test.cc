// Co-location on a real GPU: a session on CUDA runs a graph whose
// host-memory arguments (Shape's output, Reshape's shape, Fill's dims) take
// the memory-type path; two jobs share the CUDA device in a `minitf
// colocate` experiment with `"platform": "CUDA"`, the opportunistic one
// paced (perfControl 50): its launches go through the GpuOpManager with
// idle slots, and the GPU share measured with CUDA events is non-zero.
// Skipped, with the reason, where no CUDA device is visible.
#include <string>
#include <vector>

#include "bench/harness/experiment/experiment.h"
#include "device/gpu/gpu_device.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "session/session.h"
#include "tests/cuda/cuda_test_device.h"
#include "tests/testlib/kernel_runner.h"
#include "tests/testlib/test_files.h"

namespace minitf {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr char kGPU[] = "/device:GPU:0";

class CudaColocationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (test::VisibleCudaDevices() == 0) {
      GTEST_SKIP() << "no CUDA device visible: the CUDA platform has no devices here";
    }
  }
};

TEST_F(CudaColocationTest, HostMemoryArgumentsTakeTheMemoryTypePathOnCuda) {
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 2;
  options.config.gpu_options.platform = "CUDA";
  auto session = NewSession(options);
  ASSERT_TRUE(session.ok()) << session.status();
  Scope root = Scope::NewRootScope().WithDevice(kGPU);
  auto filled = ops::Fill(root.WithOpName("filled"),
                          ops::Const(root, Tensor::FromVector<int64_t>({2, 3})),
                          Tensor::Scalar<float>(2.0f));
  auto shape = ops::Shape(root.WithOpName("shape"), filled);
  auto flat = ops::Reshape(root.WithOpName("flat"), filled, ops::Const(root, Tensor::FromVector<int64_t>({6})));
  auto back = ops::Reshape(root.WithOpName("back"), flat, shape);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  ASSERT_TRUE((*session)->Create(def).ok());
  std::vector<Tensor> out;
  const absl::Status s = (*session)->Run({}, {"back:0", "shape:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  test::ExpectTensorEqual(out[0], Tensor::FromVector<float>({2, 2, 2, 2, 2, 2}, TensorShape({2, 3})));
  test::ExpectTensorEqual(out[1], Tensor::FromVector<int32_t>({2, 3}));
}

TEST_F(CudaColocationTest, TwoJobsShareTheCudaDeviceAndTheOpportunisticOneIsPaced) {
  harness::Scenario scenario;
  scenario.name = "cuda_two_jobs";
  scenario.platform = "CUDA";
  scenario.duration_s = 4;
  harness::JobSpec guarantee;
  guarantee.name = "guarantee";
  guarantee.model = "mlp";
  guarantee.batch_size = 256;
  guarantee.role = harness::JobRole::kGuarantee;
  guarantee.memory_limit = 256 * kMiB;
  harness::JobSpec opportunistic = guarantee;
  opportunistic.name = "opportunistic";
  opportunistic.role = harness::JobRole::kOpportunistic;
  opportunistic.perf_control = 50;
  scenario.jobs = {guarantee, opportunistic};

  harness::ExperimentOptions options;
  options.out_dir = test::MakeTempDir("cuda_colocation");
  absl::StatusOr<harness::ExperimentResult> result = harness::RunExperiment(scenario, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->jobs.size(), 2u);
  for (const harness::JobResult& job : result->jobs) {
    SCOPED_TRACE(job.spec.name);
    EXPECT_TRUE(job.status.ok()) << job.status;
    ASSERT_GE(job.steps.size(), 2u);
    double share = 0;
    for (const harness::StepRecord& step : job.steps) share += step.gpu_share;
    // Busy time comes from CUDA events around each kernel.
    EXPECT_GT(share, 0);
  }
  for (const harness::StepRecord& step : result->jobs[1].steps) {
    EXPECT_EQ(step.perf_control, 50);
  }
}

}  // namespace
}  // namespace minitf
