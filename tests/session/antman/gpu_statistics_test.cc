// GPUStatistics through a real session on SimGPU: the status file appears
// after the first step with the session's GPU keyed by bus id as AntMan
// keys it (lower case, no PCI domain), its figures match the device
// allocator, and perfControl comes from the config file.
#include "session/antman/gpu_statistics.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "session/antman/gpu_resource_management.h"
#include "session/direct_session.h"
#include "tests/testlib/test_files.h"

namespace minitf {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

nlohmann::json ReadJson(const std::string& path) {
  return nlohmann::json::parse(test::ReadFileOrDie(path), nullptr, /*allow_exceptions=*/false);
}

// 256x256 floats (256 KiB) filled and multiplied on the GPU.
GraphDef Graph() {
  Scope root = Scope::NewRootScope().WithDevice("/device:GPU:0");
  Output x = ops::Fill(root.WithOpName("x"),
                       ops::Const(root, Tensor::FromVector<int32_t>({256, 256})),
                       Tensor::Scalar<float>(1.0f));
  ops::Sum(root.WithOpName("sum"), ops::MatMul(root, x, x), {0, 1});
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

std::unique_ptr<DirectSession> MakeSession(const std::string& dir, bool with_config) {
  SessionOptions options;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = "memory=512MiB,mode=functional";
  options.config.gpu_options.private_allocators = true;
  options.config.gpu_options.memory_limit_bytes = 64 * kMiB;
  options.gpu_status_file = dir + "/status.json";
  // The step's kernels must run on the device: no constant folding.
  options.config.graph_options = GraphOptions::Unoptimized();
  if (with_config) {
    options.gpu_config_file = dir + "/job.json";
    test::WriteFileAtomically(options.gpu_config_file, R"({"perfControl": 70})");
  }
  auto session = DirectSession::New(options);
  EXPECT_TRUE(session.ok()) << session.status();
  EXPECT_TRUE((*session)->Create(Graph()).ok());
  return *std::move(session);
}

TEST(GPUStatisticsTest, FirstStepWritesTheDeviceFiguresKeyedByBusId) {
  const std::string dir = test::MakeTempDir("gpu_stats");
  auto session = MakeSession(dir, /*with_config=*/false);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"sum:0"}, {}, &out).ok());

  GPUStatisticsState* state = GPUStatistics::StateOf(session->action_states());
  ASSERT_NE(state, nullptr);
  const std::vector<GPUMemorySample> samples = state->LastSamples();
  ASSERT_EQ(samples.size(), 1u);
  const GPUMemorySample& s = samples[0];
  EXPECT_EQ(s.device, "GPU:0");
  EXPECT_EQ(s.bus_id, "0000:50:00.0");
  // The step held x, x*x and the sum: at least two 256 KiB buffers at once.
  EXPECT_GE(s.device_peak_bytes, 2 * 256 * 1024);
  EXPECT_LE(s.device_bytes_in_use, s.device_peak_bytes);
  // BFC chunk bytes, as TensorFlow counts them: the 4-byte sum takes 256.
  EXPECT_EQ(s.device_peak_bytes % 256, 0) << s.device_peak_bytes;
  EXPECT_EQ(s.device_bytes_in_use % 256, 0) << s.device_bytes_in_use;
  EXPECT_GE(s.device_pool_bytes, s.device_peak_bytes);
  EXPECT_EQ(s.device_limit_bytes, 64 * kMiB);
  EXPECT_EQ(s.host_bytes_in_use, 0);
  EXPECT_EQ(s.swap_reason, "");
  EXPECT_GE(s.gpu_share, 0.0);
  EXPECT_LE(s.gpu_share, 1.0);
  EXPECT_EQ(s.perf_control, 100);

  const nlohmann::json file = ReadJson(dir + "/status.json");
  ASSERT_FALSE(file.is_discarded());
  ASSERT_TRUE(file["gpuUsageInfo"].contains("50:00.0")) << file.dump();
  const nlohmann::json& gpu = file["gpuUsageInfo"]["50:00.0"];
  EXPECT_EQ(gpu["device"], "GPU:0");
  EXPECT_EQ(gpu["deviceMemUsedMax"], s.device_peak_bytes);
  EXPECT_EQ(gpu["deviceMemLimit"], 64 * kMiB);
  EXPECT_EQ(gpu["pciBusId"], "0000:50:00.0");
  EXPECT_EQ(gpu["hostMemUsedMax"], 0);
  EXPECT_EQ(gpu["deviceMemStable"], s.device_live_region_bytes);
  EXPECT_GE(s.device_live_region_bytes, 0);
  EXPECT_LE(s.device_live_region_bytes, s.device_pool_bytes);
  EXPECT_EQ(gpu["deviceMemUsedNvidia"], gpu["deviceMemPoolSize"]);
  for (const char* key : {"deviceMemUsedMin", "deviceMemPoolSize", "hostMemUsedMin",
                          "hostMemPoolSize", "swapReason", "deviceMemPeakStable", "gpuShare",
                          "gpuBusyUs", "perfControl"}) {
    EXPECT_TRUE(gpu.contains(key)) << key;
  }
  EXPECT_TRUE(file.contains("miniBatchDuration"));
  EXPECT_TRUE(file["Durations"].is_object());
  EXPECT_TRUE(file.contains("timestamp"));
}

TEST(GPUStatisticsTest, ReportsThePerfControlInForce) {
  const std::string dir = test::MakeTempDir("gpu_stats");
  auto session = MakeSession(dir, /*with_config=*/true);
  std::vector<Tensor> out;
  // Phase 1 samples before phase 2 applies the file: the first step still
  // ran unrestricted, the second under perfControl 70.
  ASSERT_TRUE(session->Run({}, {"sum:0"}, {}, &out).ok());
  ASSERT_TRUE(session->Run({}, {"sum:0"}, {}, &out).ok());
  GPUStatisticsState* state = GPUStatistics::StateOf(session->action_states());
  ASSERT_NE(state, nullptr);
  ASSERT_EQ(state->LastSamples().size(), 1u);
  EXPECT_EQ(state->LastSamples()[0].perf_control, 70);
}

TEST(GPUStatisticsTest, SessionsWithoutAStatusFileHaveNoState) {
  SessionOptions options;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = "memory=512MiB,mode=functional";
  auto session = DirectSession::New(options);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(Graph()).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {"sum:0"}, {}, &out).ok());
  EXPECT_EQ(GPUStatistics::StateOf((*session)->action_states()), nullptr);
}

}  // namespace
}  // namespace minitf
