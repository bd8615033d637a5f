// throughput.csv's bins: equal widths that span the run exactly, so the
// plot's last point is a rate over a whole bin, not one step over a sliver.
// The written report: any bytes in names, an interrupted run marked, an
// earlier run's outputs cleared.
#include "bench/harness/report/report.h"

#include <filesystem>
#include <string>
#include <vector>

#include "bench/harness/report/chrome_trace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testlib/test_files.h"

namespace minitf::harness {
namespace {

// One job with a step ending at every `times` entry.
ExperimentResult OneJob(double wall_s, const std::vector<double>& times) {
  ExperimentResult result;
  result.wall_s = wall_s;
  JobResult job;
  job.spec.name = "job";
  int64_t step = 0;
  for (double t : times) {
    StepRecord r;
    r.time_s = t;
    r.step = ++step;
    job.steps.push_back(r);
  }
  result.jobs.push_back(std::move(job));
  return result;
}

TEST(ThroughputBinsTest, BinsHaveOneWidthAndEndWithTheRun) {
  // A step every second, the run ending 0.06 s after a whole second with a
  // step in those 0.06 s: a 1 s grid would leave a last bin of 0.06 s
  // reporting that one step as 16 steps/s.
  std::vector<double> times;
  for (int i = 0; i < 45; ++i) times.push_back(i + 0.5);
  times.push_back(45.03);
  const ExperimentResult result = OneJob(45.06, times);
  const std::vector<ThroughputBin> bins = ThroughputBins(result);
  ASSERT_EQ(bins.size(), 45u);
  EXPECT_DOUBLE_EQ(bins.front().from_s, 0);
  EXPECT_DOUBLE_EQ(bins.back().to_s, 45.06);
  const double width = 45.06 / 45;
  double steps = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    EXPECT_NEAR(bins[i].to_s - bins[i].from_s, width, 1e-9) << "bin " << i;
    if (i > 0) {
      EXPECT_DOUBLE_EQ(bins[i].from_s, bins[i - 1].to_s) << "bin " << i;
    }
    ASSERT_EQ(bins[i].steps_per_s.size(), 1u);
    // At most two steps end in any bin of just over a second.
    EXPECT_LE(bins[i].steps_per_s[0], 2 / width + 1e-9) << "bin " << i;
    steps += bins[i].steps_per_s[0] * width;
  }
  // Every step is counted once.
  EXPECT_NEAR(steps, 46, 1e-6);
}

TEST(ThroughputBinsTest, ALongRunHasSixtyBinsAndAShortOneHasOne) {
  EXPECT_EQ(ThroughputBins(OneJob(600, {})).size(), 60u);
  const std::vector<ThroughputBin> short_run = ThroughputBins(OneJob(0.5, {0.25}));
  ASSERT_EQ(short_run.size(), 1u);
  EXPECT_DOUBLE_EQ(short_run[0].to_s, 0.5);
  EXPECT_DOUBLE_EQ(short_run[0].steps_per_s[0], 2);
  EXPECT_TRUE(ThroughputBins(OneJob(0, {})).empty());
}

// A scenario path is any bytes; a summary must still be written, as JSON.
TEST(WriteReportTest, NamesThatAreNotUtf8StillGiveAValidSummary) {
  const std::string dir = test::MakeTempDir("report_utf8");
  ExperimentResult result = OneJob(2, {0.5, 1, 1.5});
  result.scenario.name = "runs/\xff\xfe-scenario.json";
  result.jobs[0].status = absl::ResourceExhaustedError("OOM in '\xc3('");
  ASSERT_TRUE(WriteReport(result, dir).ok());
  ASSERT_TRUE(WriteChromeTrace(result, dir + "/trace.json").ok());
  const nlohmann::json summary =
      nlohmann::json::parse(test::ReadFileOrDie(dir + "/summary.json"));
  EXPECT_EQ(summary["scenario"], "runs/\uFFFD\uFFFD-scenario.json");
  EXPECT_EQ(summary["status"], "complete");
  EXPECT_THAT(summary["jobs"][0]["failure"].get<std::string>(), ::testing::HasSubstr("OOM"));
  EXPECT_TRUE(nlohmann::json::accept(test::ReadFileOrDie(dir + "/trace.json")));
}

// A job's input wait is part of the figures' meaning (its steps/s count
// it), so the summary says what it was.
TEST(WriteReportTest, TheSummaryGivesEachJobsInputWait) {
  const std::string dir = test::MakeTempDir("report_input");
  ExperimentResult result = OneJob(2, {0.5, 1, 1.5});
  result.jobs[0].spec.input_ms = 40;
  ASSERT_TRUE(WriteReport(result, dir).ok());
  const nlohmann::json summary =
      nlohmann::json::parse(test::ReadFileOrDie(dir + "/summary.json"));
  EXPECT_DOUBLE_EQ(summary["jobs"][0]["input_ms"].get<double>(), 40);
}

TEST(WriteReportTest, AnInterruptedRunIsMarkedSo) {
  const std::string dir = test::MakeTempDir("report_interrupted");
  ExperimentResult result = OneJob(2, {0.5, 1, 1.5});
  result.interrupted_by = "SIGINT";
  result.interrupted_at_s = 1.9;
  ASSERT_TRUE(WriteReport(result, dir).ok());
  const nlohmann::json summary =
      nlohmann::json::parse(test::ReadFileOrDie(dir + "/summary.json"));
  EXPECT_EQ(summary["status"], "interrupted");
  EXPECT_EQ(summary["interrupted_by"], "SIGINT");
  EXPECT_DOUBLE_EQ(summary["interrupted_at_s"].get<double>(), 1.9);
  EXPECT_EQ(summary["jobs"][0]["steps"], 3);
  EXPECT_THAT(test::ReadFileOrDie(dir + "/table.txt"),
              ::testing::StartsWith("interrupted by SIGINT at 1.9 s"));
}

// What an earlier run left goes, whatever else is in the directory stays,
// and until the new report is written, summary.json says "running".
TEST(BeginReportTest, ClearsTheEarlierRunsOutputsOnly) {
  const std::string dir = test::MakeTempDir("report_begin");
  ExperimentResult earlier = OneJob(2, {0.5, 1});
  earlier.jobs[0].spec.name = "old_job";
  ASSERT_TRUE(WriteReport(earlier, dir).ok());
  ASSERT_TRUE(WriteChromeTrace(earlier, dir + "/trace.json").ok());
  test::WriteFileAtomically(dir + "/notes.txt", "the user's own file");
  test::WriteFileAtomically(dir + "/memory.png", "an earlier plot");
  test::WriteFileAtomically(dir + "/memory.gp", "its script");
  ASSERT_TRUE(BeginReport(dir, "next").ok());
  for (const char* file : {"old_job.steps.csv", "table.txt", "device_timeline.csv",
                           "throughput.csv", "actions.csv", "trace.json", "memory.png",
                           "memory.gp"}) {
    EXPECT_FALSE(std::filesystem::exists(dir + "/" + file)) << file;
  }
  EXPECT_TRUE(std::filesystem::exists(dir + "/notes.txt"));
  const nlohmann::json summary =
      nlohmann::json::parse(test::ReadFileOrDie(dir + "/summary.json"));
  EXPECT_EQ(summary["status"], "running");
  EXPECT_EQ(summary["scenario"], "next");

  ASSERT_TRUE(AbandonReport(dir, "next", absl::DeadlineExceededError("too slow")).ok());
  const nlohmann::json failed =
      nlohmann::json::parse(test::ReadFileOrDie(dir + "/summary.json"));
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_THAT(failed["error"].get<std::string>(), ::testing::HasSubstr("too slow"));
}

}  // namespace
}  // namespace minitf::harness
