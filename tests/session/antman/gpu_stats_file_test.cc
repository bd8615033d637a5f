#include "session/antman/gpu_stats_file.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr char kBus0[] = "0000:50:00.0";
constexpr char kBus1[] = "0000:51:00.0";

GPUMemorySample Sample(const std::string& device, const std::string& bus_id, int64_t in_use,
                       int64_t peak) {
  GPUMemorySample sample;
  sample.device = device;
  sample.bus_id = bus_id;
  sample.device_bytes_in_use = in_use;
  sample.device_peak_bytes = peak;
  sample.device_pool_bytes = 4096;
  sample.device_limit_bytes = 8192;
  return sample;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

class GPUStatsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::path(::testing::TempDir()) / "gpu_stats_XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    path_ = dir_ / "gpu_stats.json";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Options writing `path_` on the fake clock. stable_steps = 1 keeps
  // deviceMemStable constant, so it triggers no write unless a test asks.
  GPUStatsOptions Options() {
    GPUStatsOptions options;
    options.path = path_.string();
    options.stable_steps = 1;
    options.clock = [this] { return now_; };
    return options;
  }
  nlohmann::json ReadJson() { return nlohmann::json::parse(ReadFile(path_)); }
  void Advance(absl::Duration d) { now_ += d; }

  fs::path dir_;
  fs::path path_;
  absl::Time now_ = absl::FromUnixSeconds(1795417800);
};

TEST_F(GPUStatsFileTest, FirstStepWrites) {
  GPUStatsFile stats(Options());
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  EXPECT_EQ(stats.writes(), 1);
  const nlohmann::json file = ReadJson();
  EXPECT_EQ(file["gpus"][kBus0]["deviceMemUsedMax"], 200);
}

TEST_F(GPUStatsFileTest, UnchangedStepDoesNotRewrite) {
  GPUStatsFile stats(Options());
  const std::vector<GPUMemorySample> gpus = {Sample("GPU:0", kBus0, 100, 200)};
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  Advance(absl::Milliseconds(100));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_EQ(stats.writes(), 1);
  Advance(absl::Seconds(10));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_EQ(stats.writes(), 1);
}

TEST_F(GPUStatsFileTest, MemoryChangeAfterIntervalWrites) {
  GPUStatsFile stats(Options());
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 300)}).ok());
  EXPECT_EQ(stats.writes(), 2);
  EXPECT_EQ(ReadJson()["gpus"][kBus0]["deviceMemUsedMax"], 300);
}

TEST_F(GPUStatsFileTest, ChangeWithinIntervalIsWrittenAtFirstStepAfterIt) {
  GPUStatsFile stats(Options());
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());

  // A higher peak and a lower perfControl within the interval: deferred.
  Advance(absl::Milliseconds(300));
  GPUMemorySample changed = Sample("GPU:0", kBus0, 100, 500);
  changed.perf_control = 50;
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {changed}).ok());
  EXPECT_EQ(stats.writes(), 1);
  EXPECT_EQ(ReadJson()["gpus"][kBus0]["deviceMemUsedMax"], 200);

  // Still within the interval, back to the first figures: still deferred.
  Advance(absl::Milliseconds(300));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  EXPECT_EQ(stats.writes(), 1);

  // The first step after the interval writes the pending window, although
  // its own figures equal the last written ones.
  Advance(absl::Milliseconds(500));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  EXPECT_EQ(stats.writes(), 2);
  const nlohmann::json gpu = ReadJson()["gpus"][kBus0];
  EXPECT_EQ(gpu["deviceMemUsedMax"], 500);
  EXPECT_EQ(gpu["perfControl"], 100);

  // Nothing pending any more.
  Advance(absl::Seconds(5));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  EXPECT_EQ(stats.writes(), 3);  // the max fell from 500 back to 200: a change
  Advance(absl::Seconds(5));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  EXPECT_EQ(stats.writes(), 3);
}

TEST_F(GPUStatsFileTest, PerfControlChangeRevertedWithinIntervalIsStillWritten) {
  GPUStatsFile stats(Options());
  const std::vector<GPUMemorySample> base = {Sample("GPU:0", kBus0, 100, 200)};
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), base).ok());
  Advance(absl::Milliseconds(200));
  std::vector<GPUMemorySample> throttled = base;
  throttled[0].perf_control = 30;
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), throttled).ok());
  Advance(absl::Seconds(1));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), base).ok());
  EXPECT_EQ(stats.writes(), 2);
}

TEST_F(GPUStatsFileTest, DurationChangeOverThresholdWritesUnderDoesNot) {
  GPUStatsFile stats(Options());
  const std::vector<GPUMemorySample> gpus = {Sample("GPU:0", kBus0, 100, 200)};
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Microseconds(10900), gpus).ok());  // +9%
  EXPECT_EQ(stats.writes(), 1);
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Microseconds(9100), gpus).ok());  // -9%
  EXPECT_EQ(stats.writes(), 1);
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Microseconds(11200), gpus).ok());  // +12%
  EXPECT_EQ(stats.writes(), 2);
  EXPECT_EQ(ReadJson()["miniBatchDuration"], 11200);
  // Measured from the last written value (11200), not the first.
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Microseconds(12000), gpus).ok());  // +7%
  EXPECT_EQ(stats.writes(), 2);
}

TEST_F(GPUStatsFileTest, DurationsOfGraphsAreComparedPerGraph) {
  GPUStatsFile stats(Options());
  const std::vector<GPUMemorySample> gpus = {Sample("GPU:0", kBus0, 100, 200)};
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  // A graph not written yet is a change.
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(2, absl::Microseconds(800), gpus).ok());
  EXPECT_EQ(stats.writes(), 2);
  // Alternating graphs of very different step times are not changes.
  for (int i = 0; i < 4; ++i) {
    Advance(absl::Seconds(2));
    ASSERT_TRUE(stats.RecordStep(1 + i % 2, i % 2 == 0 ? absl::Milliseconds(10)
                                                        : absl::Microseconds(800),
                                 gpus)
                    .ok());
  }
  EXPECT_EQ(stats.writes(), 2);
}

TEST_F(GPUStatsFileTest, ContentHasEveryKeyWithWindowFigures) {
  now_ = absl::FromCivil(absl::CivilSecond(2026, 11, 23, 7, 10, 0), absl::UTCTimeZone()) +
         absl::Milliseconds(123);
  GPUStatsFile stats(Options());
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10),
                               {Sample("GPU:0", kBus0, 100, 900), Sample("GPU:1", kBus1, 1, 2)})
                  .ok());
  ASSERT_EQ(stats.writes(), 1);

  // A window of three steps; the first file's figures (900) do not count.
  auto step = [](int64_t in_use, int64_t peak, int64_t host_in_use, int64_t host_peak) {
    GPUMemorySample sample = Sample("GPU:0", kBus0, in_use, peak);
    sample.host_bytes_in_use = host_in_use;
    sample.host_peak_bytes = host_peak;
    return sample;
  };
  Advance(absl::Milliseconds(100));
  ASSERT_TRUE(stats.RecordStep(2, absl::Microseconds(800),
                               {step(300, 600, 40, 50), Sample("GPU:1", kBus1, 1, 2)})
                  .ok());
  Advance(absl::Milliseconds(100));
  ASSERT_TRUE(stats.RecordStep(1, absl::Microseconds(12345),
                               {step(250, 700, 10, 90), Sample("GPU:1", kBus1, 1, 2)})
                  .ok());
  ASSERT_EQ(stats.writes(), 1);
  Advance(absl::Seconds(1));
  GPUMemorySample last = step(280, 650, 20, 30);
  last.device_pool_bytes = 1 << 20;
  last.device_limit_bytes = 2 << 20;
  last.host_pool_bytes = 3 << 20;
  last.swap_reason = "OOM";
  last.gpu_share = 0.42;
  last.perf_control = 50;
  ASSERT_TRUE(
      stats.RecordStep(1, absl::Microseconds(12000), {last, Sample("GPU:1", kBus1, 1, 2)}).ok());
  ASSERT_EQ(stats.writes(), 2);

  const nlohmann::json file = ReadJson();
  EXPECT_EQ(file["timestamp"], "2026-11-23T07:10:01.323Z");
  EXPECT_EQ(file["timestampUs"], int64_t{1795417801323000});
  EXPECT_EQ(file["miniBatchDuration"], 12000);
  EXPECT_EQ(file["Durations"], nlohmann::json({{"1", 12000}, {"2", 800}}));
  ASSERT_EQ(file["gpus"].size(), 2u);
  const nlohmann::json& gpu = file["gpus"][kBus0];
  EXPECT_EQ(gpu, nlohmann::json({{"device", "GPU:0"},
                                 {"deviceMemUsedMax", 700},
                                 {"deviceMemUsedMin", 250},
                                 {"deviceMemPoolSize", 1 << 20},
                                 {"deviceMemStable", true},
                                 {"hostMemUsedMax", 90},
                                 {"hostMemUsedMin", 10},
                                 {"hostMemPoolSize", 3 << 20},
                                 {"swapReason", "OOM"},
                                 {"deviceMemLimit", 2 << 20},
                                 {"gpuShare", 0.42},
                                 {"perfControl", 50}}));
  EXPECT_EQ(file["gpus"][kBus1]["device"], "GPU:1");
}

TEST_F(GPUStatsFileTest, DeviceMemStableAfterStableStepsUnchangedPeaks) {
  GPUStatsOptions options = Options();
  options.stable_steps = 3;
  GPUStatsFile stats(std::move(options));
  const std::vector<GPUMemorySample> gpus = {Sample("GPU:0", kBus0, 100, 200)};

  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_EQ(stats.writes(), 1);
  EXPECT_EQ(ReadJson()["gpus"][kBus0]["deviceMemStable"], false);
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_EQ(stats.writes(), 1);  // two equal peaks: not yet stable, nothing new
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_EQ(stats.writes(), 2);  // three: stable, and that is reported
  EXPECT_EQ(ReadJson()["gpus"][kBus0]["deviceMemStable"], true);

  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 201)}).ok());
  EXPECT_EQ(stats.writes(), 3);
  EXPECT_EQ(ReadJson()["gpus"][kBus0]["deviceMemStable"], false);
}

TEST_F(GPUStatsFileTest, FlushWritesWhateverThePolicy) {
  GPUStatsFile stats(Options());
  ASSERT_TRUE(stats.Flush().ok());  // nothing recorded yet
  EXPECT_EQ(stats.writes(), 1);
  EXPECT_TRUE(ReadJson()["gpus"].empty());
  EXPECT_TRUE(ReadJson()["Durations"].empty());

  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  EXPECT_EQ(stats.writes(), 2);
  ASSERT_TRUE(stats.Flush().ok());  // within the interval, nothing changed
  EXPECT_EQ(stats.writes(), 3);
  // With no step since the last write, the last written figures again.
  EXPECT_EQ(ReadJson()["gpus"][kBus0]["deviceMemUsedMax"], 200);
}

TEST_F(GPUStatsFileTest, GpuWithoutBusIdIsKeyedByDeviceName) {
  GPUStatsFile stats(Options());
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", "", 1, 2)}).ok());
  EXPECT_EQ(ReadJson()["gpus"]["GPU:0"]["deviceMemUsedMax"], 2);
}

TEST_F(GPUStatsFileTest, TwoSamplesOfOneGpuAreRejected) {
  GPUStatsFile stats(Options());
  const absl::Status status = stats.RecordStep(
      1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 1, 2), Sample("GPU:1", kBus0, 1, 2)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(kBus0));
  EXPECT_EQ(stats.writes(), 0);
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(GPUStatsFileTest, MissingDirectoryFailsNamingPathThenSucceedsOnceCreated) {
  path_ = dir_ / "not_yet" / "gpu_stats.json";
  GPUStatsFile stats(Options());
  const std::vector<GPUMemorySample> gpus = {Sample("GPU:0", kBus0, 100, 200)};

  const absl::Status status = stats.RecordStep(1, absl::Milliseconds(10), gpus);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(path_.string()));
  EXPECT_EQ(stats.writes(), 0);

  fs::create_directory(dir_ / "not_yet");
  // A failed attempt also waits for the interval before the next one.
  Advance(absl::Milliseconds(500));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_FALSE(fs::exists(path_));
  // The change is still pending: the first step after the interval writes.
  Advance(absl::Milliseconds(600));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_EQ(stats.writes(), 1);
  EXPECT_EQ(ReadJson()["gpus"][kBus0]["deviceMemUsedMax"], 200);
}

TEST_F(GPUStatsFileTest, FailedWriteLeavesPreviousFileIntact) {
  GPUStatsFile stats(Options());
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  const std::string before = ReadFile(path_);

  // The temporary file's name taken by a non-empty directory: the write
  // fails even for root.
  const fs::path tmp = path_.string() + ".tmp." + std::to_string(::getpid());
  fs::create_directories(tmp / "occupied");
  Advance(absl::Seconds(2));
  const absl::Status status =
      stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 300)});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(path_.string()));
  EXPECT_EQ(ReadFile(path_), before);
  EXPECT_EQ(stats.writes(), 1);

  fs::remove_all(tmp);
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 250)}).ok());
  EXPECT_EQ(stats.writes(), 2);
  // The window of the failed write carried over: its 300 peak is in the max.
  EXPECT_EQ(ReadJson()["gpus"][kBus0]["deviceMemUsedMax"], 300);
}

TEST_F(GPUStatsFileTest, RenameOntoDirectoryFailsAndRemovesTemporaryFile) {
  fs::create_directories(path_ / "occupied");
  GPUStatsFile stats(Options());
  const absl::Status status =
      stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(path_.string()));
  EXPECT_TRUE(fs::is_directory(path_ / "occupied"));
  EXPECT_FALSE(fs::exists(path_.string() + ".tmp." + std::to_string(::getpid())));
  EXPECT_EQ(stats.writes(), 0);
}

}  // namespace
}  // namespace minitf
