// GPUStatsFile under concurrent use: a reader never sees a partial file
// while steps are recorded and flushed from other threads.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "gtest/gtest.h"
#include "session/antman/gpu_stats_file.h"

namespace minitf {
namespace {

namespace fs = std::filesystem;

constexpr char kBus0[] = "0000:50:00.0";
constexpr char kKey0[] = "50:00.0";  // its gpuUsageInfo key
constexpr int kSteps = 2000;

// Step i's figures; every step changes them, so with no interval every step
// writes, and each file describes exactly one step.
GPUMemorySample SampleOfStep(int i) {
  GPUMemorySample sample;
  sample.device = "GPU:0";
  sample.bus_id = kBus0;
  sample.device_bytes_in_use = 500 + i;
  sample.device_peak_bytes = 1000 + i;
  sample.device_pool_bytes = 4096;
  sample.device_limit_bytes = 8192;
  sample.perf_control = i % 100;
  return sample;
}

TEST(GPUStatsFileConcurrencyTest, ReaderNeverSeesPartialFile) {
  std::string templ = (fs::path(::testing::TempDir()) / "gpu_stats_XXXXXX").string();
  ASSERT_NE(::mkdtemp(templ.data()), nullptr);
  const fs::path dir = templ;
  const fs::path path = dir / "gpu_stats.json";

  GPUStatsOptions options;
  options.path = path.string();
  options.min_interval = absl::ZeroDuration();
  GPUStatsFile stats(std::move(options));

  std::atomic<bool> done{false};
  std::atomic<int> write_errors{0};
  std::thread writer([&] {
    for (int i = 0; i < kSteps; ++i) {
      if (!stats.RecordStep(1, absl::Microseconds(i + 1), {SampleOfStep(i)}).ok()) ++write_errors;
    }
    done = true;
  });
  // Flushes and reads the counter concurrently with the writer.
  std::thread flusher([&] {
    while (!done) {
      if (!stats.Flush().ok()) ++write_errors;
      (void)stats.writes();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });

  int reads = 0;
  int bad_reads = 0;
  while (!done) {
    std::ifstream in(path, std::ios::binary);
    if (!in) continue;  // before the first write
    std::stringstream content;
    content << in.rdbuf();
    const nlohmann::json file = nlohmann::json::parse(content.str(), nullptr,
                                                      /*allow_exceptions=*/false);
    ++reads;
    if (file.is_discarded() || !file.contains("gpuUsageInfo") || !file.contains("Durations")) {
      ++bad_reads;
      continue;
    }
    // A flush before the first step writes a file with no GPUs and no graphs.
    if (file["gpuUsageInfo"].empty() && file["Durations"].empty()) continue;
    if (!file["gpuUsageInfo"].contains(kKey0)) {
      ++bad_reads;
      continue;
    }
    // The figures of one file come from one step.
    const nlohmann::json& gpu = file["gpuUsageInfo"][kKey0];
    const int64_t step = gpu["deviceMemUsedMax"].get<int64_t>() - 1000;
    if (gpu["deviceMemUsedMin"] != 500 + step || gpu["perfControl"] != step % 100 ||
        file["miniBatchDuration"] != step + 1) {
      ++bad_reads;
    }
  }
  writer.join();
  flusher.join();

  EXPECT_EQ(bad_reads, 0) << "of " << reads << " reads";
  EXPECT_EQ(write_errors, 0);
  EXPECT_GE(stats.writes(), kSteps);
  const nlohmann::json last = nlohmann::json::parse(std::ifstream(path));
  EXPECT_EQ(last["gpuUsageInfo"][kKey0]["deviceMemUsedMax"], 1000 + kSteps - 1);
  // No temporary file is left behind.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace minitf
