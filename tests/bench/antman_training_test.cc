// The AntMan control plane on a training job (MLP on SimGPU): cutting the
// job's memory limit mid-training keeps later steps within the new limit,
// with the overflow on the host (VMem), and leaves the losses unchanged;
// raising it again brings the host bytes back to zero within two steps.
// The statistics file reports what happened.
#include <memory>
#include <string>
#include <vector>

#include "bench/models/mlp_model.h"
#include "device/gpu/gpu_device.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "session/antman/gpu_resource_management.h"
#include "session/antman/gpu_statistics.h"
#include "session/direct_session.h"
#include "tests/testlib/test_files.h"

namespace minitf {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int kSteps = 16;
constexpr int kShrinkAt = 4;  // The file is rewritten before this step.
constexpr int kGrowAt = 10;

std::string LimitConfig(int64_t bytes) {
  return "{\"gpuConfigInfo\": {\"GPU:0\": {\"maxDeviceMem\": " + std::to_string(bytes) +
         "}}, \"perfControl\": 100}";
}

struct StepRecord {
  float loss = 0;
  int64_t device_peak = 0;
  int64_t limit = 0;
  int64_t host_bytes = 0;
};

class AntManTrainingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MlpConfig config;
    config.features = 64;
    config.hidden = 512;
    config.classes = 3;
    config.device = "/device:GPU:0";
    auto model = BuildMlpModel(config);
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = *std::move(model);
    auto batch = MakeRingsBatch(config, /*batch_size=*/1024, /*seed=*/7);
    ASSERT_TRUE(batch.ok()) << batch.status();
    batch_ = *std::move(batch);
  }

  SessionOptions Options() const {
    SessionOptions options;
    options.config.intra_op_parallelism_threads = 2;
    options.config.inter_op_parallelism_threads = 2;
    options.config.gpu_options.platform = "SimGPU";
    options.config.gpu_options.simgpu_options = "memory=1GiB,mode=functional";
    options.config.gpu_options.private_allocators = true;
    // The model asks for the GPU; ops CUDA has no kernel for run on the CPU.
    options.config.allow_soft_placement = true;
    options.config.gpu_options.memory_limit_bytes = 256 * kMiB;
    return options;
  }

  // Trains kSteps steps with statistics in `dir`; when `managed`, under a
  // config file that cuts the memory limit to `small` before kShrinkAt and
  // restores it before kGrowAt. Each record is what GPUStatistics sampled
  // after the step (the limit then is the one the step ran under: a new one
  // is applied after the sample).
  std::vector<StepRecord> Train(const std::string& dir, bool managed, int64_t small) {
    SessionOptions options = Options();
    const std::string config_file = managed ? dir + "/job.json" : "";
    options.gpu_status_file = dir + "/status.json";
    if (managed) {
      options.gpu_config_file = config_file;
      test::WriteFileAtomically(config_file, "{}");
    }
    auto session = DirectSession::New(options);
    EXPECT_TRUE(session.ok()) << session.status();
    DirectSession* s = session->get();
    EXPECT_TRUE(s->Create(model_.graph).ok());
    EXPECT_TRUE(s->Run({}, {}, {model_.init}, nullptr).ok());

    std::vector<StepRecord> records;
    for (int step = 0; step < kSteps; ++step) {
      if (managed && (step == kShrinkAt || step == kGrowAt)) {
        GPUResourceState* state = GPUResourceManagement::StateOf(s->action_states());
        EXPECT_NE(state, nullptr);
        const auto before = state->GetStatus();
        test::WriteFileAtomically(config_file,
                                  LimitConfig(step == kShrinkAt ? small : 256 * kMiB));
        EXPECT_TRUE(state->WaitForConfigCount(
            before.configs_applied + before.configs_rejected + 1, absl::Seconds(10)));
      }
      std::vector<Tensor> out;
      EXPECT_TRUE(s->Run(batch_.Feeds(model_), {model_.loss}, {model_.train}, &out).ok());
      StepRecord r;
      r.loss = out.empty() ? 0 : out[0].scalar<float>()();
      GPUStatisticsState* stats = GPUStatistics::StateOf(s->action_states());
      EXPECT_NE(stats, nullptr);
      const std::vector<GPUMemorySample> samples = stats->LastSamples();
      EXPECT_EQ(samples.size(), 1u);
      if (samples.size() == 1) {
        r.device_peak = samples[0].device_peak_bytes;
        r.limit = samples[0].device_limit_bytes;
        r.host_bytes = samples[0].host_peak_bytes;
      }
      records.push_back(r);
    }
    return records;
  }

  TrainingModel model_;
  Batch batch_;
};

TEST_F(AntManTrainingTest, ShrinkSpillsToHostWithoutChangingTheLossesAndGrowRecovers) {
  const std::vector<StepRecord> reference =
      Train(test::MakeTempDir("antman_train"), /*managed=*/false, 0);
  const std::string dir = test::MakeTempDir("antman_train");
  // Below the step's working set (several MiB of activations and
  // gradients), above the weights.
  const int64_t small = 2 * kMiB;
  const std::vector<StepRecord> managed = Train(dir, /*managed=*/true, small);
  ASSERT_EQ(managed.size(), reference.size());

  for (int step = 0; step < kSteps; ++step) {
    // VMem changes where buffers live, never what is computed.
    EXPECT_EQ(managed[step].loss, reference[step].loss) << "step " << step;
    EXPECT_EQ(reference[step].host_bytes, 0) << "step " << step;
  }
  // The unmanaged job never needed the host.
  for (int step = 0; step < kShrinkAt; ++step) {
    EXPECT_EQ(managed[step].host_bytes, 0) << "step " << step;
    EXPECT_EQ(managed[step].limit, 256 * kMiB) << "step " << step;
  }
  // From the step after the change (the limit moves at the boundary after
  // kShrinkAt) the device stays within the limit in force, which is the
  // target or what live buffers pinned above it, and the rest is on the host.
  for (int step = kShrinkAt + 1; step <= kGrowAt; ++step) {
    EXPECT_LE(managed[step].device_peak, managed[step].limit) << "step " << step;
    EXPECT_LT(managed[step].limit, 256 * kMiB) << "step " << step;
    EXPECT_GT(managed[step].host_bytes, 0) << "step " << step;
  }
  // Grown back: host bytes are gone within two steps.
  EXPECT_EQ(managed[kGrowAt + 1].limit, 256 * kMiB);
  EXPECT_EQ(managed[kGrowAt + 2].host_bytes, 0);
  EXPECT_EQ(managed[kSteps - 1].host_bytes, 0);

  // The statistics file exists, parses, and names the device.
  const std::string content = test::ReadFileOrDie(dir + "/status.json");
  nlohmann::json status = nlohmann::json::parse(content, nullptr, false);
  ASSERT_FALSE(status.is_discarded()) << content;
  ASSERT_TRUE(status["gpuUsageInfo"].contains("50:00.0")) << content;
  EXPECT_TRUE(status["gpuUsageInfo"]["50:00.0"].contains("deviceMemUsedMax")) << content;
}

}  // namespace
}  // namespace minitf
