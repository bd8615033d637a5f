#include "session/antman/gpu_stats_file.h"

#include <unistd.h>

#include <cstdlib>
#include <iterator>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/test_files.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
namespace fs = std::filesystem;

// Bus ids as the devices report them, and the gpuUsageInfo keys AntMan
// makes of them (lower case, no PCI domain).
constexpr char kBus0[] = "0000:50:00.0";
constexpr char kBus1[] = "0000:51:00.0";
constexpr char kKey0[] = "50:00.0";
constexpr char kKey1[] = "51:00.0";

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
  // deviceMemPeakStable constant, so it triggers no write unless a test asks.
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
  EXPECT_EQ(file["gpuUsageInfo"][kKey0]["deviceMemUsedMax"], 200);
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

// With a refresh interval, an unchanged job's file is rewritten once that
// long has passed, with its step count, so a reader can follow its rate.
TEST_F(GPUStatsFileTest, RefreshIntervalRewritesAnUnchangedFileWithTheStepCount) {
  GPUStatsOptions options = Options();
  options.refresh_interval = absl::Seconds(1);
  GPUStatsFile stats(options);
  const std::vector<GPUMemorySample> gpus = {Sample("GPU:0", kBus0, 100, 200)};
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_EQ(ReadJson()["stepCount"], 1);
  for (int i = 0; i < 9; ++i) {
    Advance(absl::Milliseconds(100));
    ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  }
  EXPECT_EQ(stats.writes(), 1);  // 0.9 s: not yet
  Advance(absl::Milliseconds(100));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_EQ(stats.writes(), 2);
  const nlohmann::json file = ReadJson();
  EXPECT_EQ(file["stepCount"], 11);
  EXPECT_EQ(file["timestampUs"], absl::ToUnixMicros(now_));
}

TEST_F(GPUStatsFileTest, MemoryChangeAfterIntervalWrites) {
  GPUStatsFile stats(Options());
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 300)}).ok());
  EXPECT_EQ(stats.writes(), 2);
  EXPECT_EQ(ReadJson()["gpuUsageInfo"][kKey0]["deviceMemUsedMax"], 300);
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
  EXPECT_EQ(ReadJson()["gpuUsageInfo"][kKey0]["deviceMemUsedMax"], 200);

  // Still within the interval, back to the first figures: still deferred.
  Advance(absl::Milliseconds(300));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  EXPECT_EQ(stats.writes(), 1);

  // The first step after the interval writes the pending window, although
  // its own figures equal the last written ones.
  Advance(absl::Milliseconds(500));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  EXPECT_EQ(stats.writes(), 2);
  const nlohmann::json gpu = ReadJson()["gpuUsageInfo"][kKey0];
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
  last.device_live_region_bytes = 1 << 19;
  last.device_limit_bytes = 2 << 20;
  last.host_pool_bytes = 3 << 20;
  last.swap_reason = "OOM";
  last.gpu_share = 0.42;
  last.gpu_busy_us = 1250000;
  last.perf_control = 50;
  ASSERT_TRUE(
      stats.RecordStep(1, absl::Microseconds(12000), {last, Sample("GPU:1", kBus1, 1, 2)}).ok());
  ASSERT_EQ(stats.writes(), 2);

  const nlohmann::json file = ReadJson();
  EXPECT_EQ(file["timestamp"], "2026-11-23T07:10:01.323Z");
  EXPECT_EQ(file["timestampUs"], int64_t{1795417801323000});
  EXPECT_EQ(file["miniBatchDuration"], 12000);
  EXPECT_EQ(file["Durations"], nlohmann::json({{"graph_1", 12000}, {"graph_2", 800}}));
  ASSERT_EQ(file["gpuUsageInfo"].size(), 2u);
  const nlohmann::json& gpu = file["gpuUsageInfo"][kKey0];
  EXPECT_EQ(gpu, nlohmann::json({{"deviceMemUsedMax", 700},
                                 {"deviceMemUsedMin", 250},
                                 {"deviceMemPoolSize", 1 << 20},
                                 {"deviceMemStable", 1 << 19},
                                 {"hostMemUsedMax", 90},
                                 {"hostMemUsedMin", 10},
                                 {"hostMemPoolSize", 3 << 20},
                                 {"swapReason", "OOM"},
                                 {"deviceMemUsedNvidia", 1 << 20},
                                 {"device", "GPU:0"},
                                 {"pciBusId", kBus0},
                                 {"deviceMemLimit", 2 << 20},
                                 {"deviceMemPeakStable", true},
                                 {"gpuShare", 0.42},
                                 {"gpuBusyUs", 1250000},
                                 {"perfControl", 50}}));
  EXPECT_EQ(file["gpuUsageInfo"][kKey1]["device"], "GPU:1");
}

TEST_F(GPUStatsFileTest, GPUUsageInfoKeyIsTheBusIdInLowerCaseWithoutItsDomain) {
  GPUStatsFile stats(Options());
  ASSERT_TRUE(
      stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", "0000:5A:00.0", 1, 2)}).ok());
  const nlohmann::json usage = ReadJson()["gpuUsageInfo"];
  ASSERT_EQ(usage.size(), 1u);
  ASSERT_TRUE(usage.contains("5a:00.0")) << usage.dump();
  EXPECT_EQ(usage["5a:00.0"]["pciBusId"], "0000:5A:00.0");
}

TEST_F(GPUStatsFileTest, DeviceMemStableChangeAfterIntervalWrites) {
  GPUStatsFile stats(Options());
  GPUMemorySample sample = Sample("GPU:0", kBus0, 100, 200);
  sample.device_live_region_bytes = 2048;
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {sample}).ok());
  Advance(absl::Seconds(2));
  sample.device_live_region_bytes = 4096;
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {sample}).ok());
  EXPECT_EQ(stats.writes(), 2);
  EXPECT_EQ(ReadJson()["gpuUsageInfo"][kKey0]["deviceMemStable"], 4096);
}

TEST_F(GPUStatsFileTest, GPUShareAloneDoesNotRewriteButRidesAlongWithAChange) {
  GPUStatsFile stats(Options());
  GPUMemorySample sample = Sample("GPU:0", kBus0, 100, 200);
  sample.gpu_share = 0.25;
  sample.gpu_busy_us = 1000;
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {sample}).ok());
  Advance(absl::Seconds(2));
  sample.gpu_share = 0.75;
  sample.gpu_busy_us = 9000;
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {sample}).ok());
  EXPECT_EQ(stats.writes(), 1);
  Advance(absl::Seconds(2));
  sample.host_pool_bytes += 1;
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {sample}).ok());
  EXPECT_EQ(stats.writes(), 2);
  EXPECT_EQ(ReadJson()["gpuUsageInfo"][kKey0]["gpuShare"], 0.75);
  EXPECT_EQ(ReadJson()["gpuUsageInfo"][kKey0]["gpuBusyUs"], 9000);
}

TEST_F(GPUStatsFileTest, DeviceMemPeakStableAfterStableStepsUnchangedPeaks) {
  GPUStatsOptions options = Options();
  options.stable_steps = 3;
  GPUStatsFile stats(std::move(options));
  const std::vector<GPUMemorySample> gpus = {Sample("GPU:0", kBus0, 100, 200)};

  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_EQ(stats.writes(), 1);
  EXPECT_EQ(ReadJson()["gpuUsageInfo"][kKey0]["deviceMemPeakStable"], false);
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_EQ(stats.writes(), 1);  // two equal peaks: not yet stable, nothing new
  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), gpus).ok());
  EXPECT_EQ(stats.writes(), 2);  // three: stable, and that is reported
  EXPECT_EQ(ReadJson()["gpuUsageInfo"][kKey0]["deviceMemPeakStable"], true);

  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 201)}).ok());
  EXPECT_EQ(stats.writes(), 3);
  EXPECT_EQ(ReadJson()["gpuUsageInfo"][kKey0]["deviceMemPeakStable"], false);
}

TEST_F(GPUStatsFileTest, FlushWritesWhateverThePolicy) {
  GPUStatsFile stats(Options());
  ASSERT_TRUE(stats.Flush().ok());  // nothing recorded yet
  EXPECT_EQ(stats.writes(), 1);
  EXPECT_TRUE(ReadJson()["gpuUsageInfo"].empty());
  EXPECT_TRUE(ReadJson()["Durations"].empty());

  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  EXPECT_EQ(stats.writes(), 2);
  ASSERT_TRUE(stats.Flush().ok());  // within the interval, nothing changed
  EXPECT_EQ(stats.writes(), 3);
  // With no step since the last write, the last written figures again.
  EXPECT_EQ(ReadJson()["gpuUsageInfo"][kKey0]["deviceMemUsedMax"], 200);
}

TEST_F(GPUStatsFileTest, GpuWithoutBusIdIsKeyedByDeviceName) {
  GPUStatsFile stats(Options());
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", "", 1, 2)}).ok());
  EXPECT_EQ(ReadJson()["gpuUsageInfo"]["GPU:0"]["deviceMemUsedMax"], 2);
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

// The status file lives in the coordinator's directory, which other jobs
// may write in: a link planted in its place or at a temporary name is not
// written through.
TEST_F(GPUStatsFileTest, ALinkPlantedAsTheFileIsRefusedAndNothingOutsideIsWritten) {
  const fs::path outside = dir_ / "outside";
  fs::create_directory(outside);
  const fs::path victim = outside / "victim";
  { std::ofstream(victim) << "precious\n"; }
  fs::create_symlink(victim, path_);
  fs::create_symlink(victim, path_.string() + ".tmp");
  GPUStatsFile stats(Options());
  const absl::Status status =
      stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)});
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied) << status;
  EXPECT_THAT(status.message(), HasSubstr(path_.string()));
  EXPECT_THAT(status.message(), HasSubstr("symbolic link"));
  EXPECT_EQ(stats.writes(), 0);
  std::ifstream in(victim);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "precious\n");
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
  EXPECT_EQ(ReadJson()["gpuUsageInfo"][kKey0]["deviceMemUsedMax"], 200);
}

TEST_F(GPUStatsFileTest, FailedWriteLeavesPreviousFileIntact) {
  GPUStatsFile stats(Options());
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)}).ok());
  const std::string before = ReadFile(path_);

  // Files limited to 64 bytes (RLIMIT_FSIZE, its signal ignored): the
  // write fails halfway with EFBIG, as a full disk fails, even for root.
  Advance(absl::Seconds(2));
  absl::Status status;
  {
    const test::ScopedFileSizeLimit limit(64);
    status = stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 300)});
  }
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(path_.string()));
  EXPECT_EQ(ReadFile(path_), before);
  EXPECT_EQ(stats.writes(), 1);
  // Nothing but the file itself: the temporary was removed.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);

  Advance(absl::Seconds(2));
  ASSERT_TRUE(stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 250)}).ok());
  EXPECT_EQ(stats.writes(), 2);
  // The window of the failed write carried over: its 300 peak is in the max.
  EXPECT_EQ(ReadJson()["gpuUsageInfo"][kKey0]["deviceMemUsedMax"], 300);
}

TEST_F(GPUStatsFileTest, RenameOntoDirectoryFailsAndRemovesTemporaryFile) {
  fs::create_directories(path_ / "occupied");
  GPUStatsFile stats(Options());
  const absl::Status status =
      stats.RecordStep(1, absl::Milliseconds(10), {Sample("GPU:0", kBus0, 100, 200)});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(path_.string()));
  EXPECT_TRUE(fs::is_directory(path_ / "occupied"));
  // Nothing beside the directory: no temporary left.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  EXPECT_EQ(stats.writes(), 0);
}

// A statistics file as AntMan writes it (GPUStatistics::dumpGPUStatistics in
// tensorflow/contrib/resource_management/gpu_statistics.cc): jsoncpp's
// StreamWriterBuilder with sorted keys (its tab indentation shown as
// spaces); the GPU of bus id 0000:50:00.0 keyed without its domain, graphs
// keyed "graph_<id>", every figure an integer, swapReason a string.
constexpr char kAntManFile[] = R"({
   "Durations" :
   {
      "graph_1" : 12000,
      "graph_2" : 800
   },
   "gpuUsageInfo" :
   {
      "50:00.0" :
      {
         "deviceMemPoolSize" : 4294967296,
         "deviceMemStable" : 3221225472,
         "deviceMemUsedMax" : 3221225472,
         "deviceMemUsedMin" : 1073741824,
         "deviceMemUsedNvidia" : -1,
         "hostMemPoolSize" : 0,
         "hostMemUsedMax" : 0,
         "hostMemUsedMin" : 0,
         "swapReason" : ""
      }
   },
   "miniBatchDuration" : 12000
})";

// The JSON type of `value`, integers signed or not alike (jsoncpp's Int64
// and UInt64 are both JSON integers).
std::string JsonKind(const nlohmann::json& value) {
  if (value.is_number_integer()) return "integer";
  return value.type_name();
}

// Walks `antman` and `minitf` together. Every key of `antman` missing from
// `minitf`, or present with another JSON type, is added to `mismatches`;
// every key only `minitf` has is added to `additions`. Paths are
// "/key/key".
void CompareWithAntMan(const nlohmann::json& antman, const nlohmann::json& minitf,
                       const std::string& path, std::vector<std::string>* mismatches,
                       std::set<std::string>* additions) {
  for (const auto& [key, value] : antman.items()) {
    const std::string here = path + "/" + key;
    if (!minitf.contains(key)) {
      mismatches->push_back(here + ": missing");
      continue;
    }
    const nlohmann::json& ours = minitf[key];
    if (JsonKind(ours) != JsonKind(value)) {
      mismatches->push_back(here + ": " + JsonKind(ours) + ", AntMan " + JsonKind(value));
      continue;
    }
    if (value.is_object()) CompareWithAntMan(value, ours, here, mismatches, additions);
  }
  for (const auto& [key, value] : minitf.items()) {
    if (!antman.contains(key)) additions->insert(path + "/" + key);
  }
}

class GPUStatsFileAntManShapeTest : public GPUStatsFileTest {
 protected:
  // The same job as kAntManFile: graphs 1 and 2, the GPU at 0000:50:00.0.
  nlohmann::json WriteMinitfFile() {
    GPUStatsFile stats(Options());
    GPUMemorySample sample = Sample("GPU:0", kBus0, 1073741824, 3221225472);
    sample.device_pool_bytes = 4294967296;
    sample.device_live_region_bytes = 3221225472;
    EXPECT_TRUE(stats.RecordStep(2, absl::Microseconds(800), {sample}).ok());
    EXPECT_TRUE(stats.RecordStep(1, absl::Microseconds(12000), {sample}).ok());
    EXPECT_TRUE(stats.Flush().ok());
    return ReadJson();
  }
};

TEST_F(GPUStatsFileAntManShapeTest, EveryAntManKeyIsAtAntMansPlaceWithAntMansType) {
  const nlohmann::json antman = nlohmann::json::parse(kAntManFile);
  const nlohmann::json minitf = WriteMinitfFile();
  std::vector<std::string> mismatches;
  std::set<std::string> additions;
  CompareWithAntMan(antman, minitf, "", &mismatches, &additions);
  EXPECT_THAT(mismatches, IsEmpty()) << minitf.dump();
}

TEST_F(GPUStatsFileAntManShapeTest, KeysAntManLacksAreOnlyMinitfsAdditions) {
  const nlohmann::json antman = nlohmann::json::parse(kAntManFile);
  const nlohmann::json minitf = WriteMinitfFile();
  std::vector<std::string> mismatches;
  std::set<std::string> additions;
  CompareWithAntMan(antman, minitf, "", &mismatches, &additions);
  // None under Durations, and the same GPU key as AntMan's.
  EXPECT_EQ(additions, (std::set<std::string>{
                           "/timestamp",
                           "/timestampUs",
                           "/stepCount",
                           "/gpuUsageInfo/50:00.0/device",
                           "/gpuUsageInfo/50:00.0/pciBusId",
                           "/gpuUsageInfo/50:00.0/deviceMemLimit",
                           "/gpuUsageInfo/50:00.0/deviceMemPeakStable",
                           "/gpuUsageInfo/50:00.0/gpuShare",
                           "/gpuUsageInfo/50:00.0/gpuBusyUs",
                           "/gpuUsageInfo/50:00.0/perfControl",
                       }))
      << minitf.dump();
}

TEST_F(GPUStatsFileAntManShapeTest, OneStepPerGraphGivesAntMansFigures) {
  // The values too, where minitf's figure means what AntMan's did for one
  // steady step per graph (AntMan wrote -1 for deviceMemUsedNvidia; minitf
  // the device pool, see gpu_stats_file.h).
  nlohmann::json antman = nlohmann::json::parse(kAntManFile);
  antman["gpuUsageInfo"]["50:00.0"]["deviceMemUsedNvidia"] = 4294967296;
  nlohmann::json minitf = WriteMinitfFile();
  for (const char* extra : {"timestamp", "timestampUs", "stepCount"}) {
    minitf.erase(std::string(extra));
  }
  for (const char* extra :
       {"device", "pciBusId", "deviceMemLimit", "deviceMemPeakStable", "gpuShare", "gpuBusyUs",
        "perfControl"}) {
    minitf["gpuUsageInfo"]["50:00.0"].erase(std::string(extra));
  }
  EXPECT_EQ(minitf, antman) << minitf.dump();
}

}  // namespace
}  // namespace minitf
