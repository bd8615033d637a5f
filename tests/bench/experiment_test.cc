// A short two-job co-location experiment, end to end: the files the harness
// leaves and their consistency with one another (not timing values), the
// release of a job suspended at the end, scaling of a scenario's time axis.
#include "bench/harness/experiment/experiment.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "bench/harness/experiment/metrics.h"
#include "bench/harness/report/chrome_trace.h"
#include "bench/harness/report/plots.h"
#include "bench/harness/report/report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "session/antman/gpu_config.h"
#include "tests/testlib/test_files.h"

namespace minitf::harness {
namespace {

using nlohmann::json;

constexpr int64_t kMiB = int64_t{1} << 20;

// Two small MLP jobs; the opportunistic one is paced, has its limit cut,
// and is suspended (perfControl 0) until the experiment ends.
Scenario TwoJobs() {
  Scenario s;
  s.name = "two_jobs";
  s.platform = "SimGPU";
  s.simgpu_options = "memory=192MiB,mode=functional";
  s.duration_s = 3;
  JobSpec g;
  g.name = "guarantee";
  g.model = "mlp";
  g.model_params = {{"features", 16}, {"hidden", 64}};
  g.batch_size = 64;
  g.role = JobRole::kGuarantee;
  g.memory_limit = 64 * kMiB;
  JobSpec o = g;
  o.name = "opportunistic";
  o.role = JobRole::kOpportunistic;
  o.memory_limit = 32 * kMiB;
  o.perf_control = 50;
  s.jobs = {g, o};
  TimelineAction cut;
  cut.at_s = 0.8;
  cut.job = "opportunistic";
  cut.max_device_mem = 16 * kMiB;
  TimelineAction suspend;
  suspend.at_s = 1.6;
  suspend.job = "opportunistic";
  suspend.perf_control = 0;
  s.timeline = {cut, suspend};
  return s;
}

std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  for (absl::string_view line : absl::StrSplit(test::ReadFileOrDie(path), '\n')) {
    if (!line.empty()) rows.push_back(absl::StrSplit(line, ','));
  }
  return rows;
}

double Number(const std::string& text) {
  double v = 0;
  EXPECT_TRUE(absl::SimpleAtod(text, &v)) << text;
  return v;
}

TEST(ExperimentTest, ATwoJobRunLeavesConsistentFiles) {
  const std::string dir = test::MakeTempDir("experiment");
  ExperimentOptions options;
  options.out_dir = dir;
  options.baseline = true;
  options.baseline_seconds = 0.5;
  absl::StatusOr<ExperimentResult> result = RunExperiment(TwoJobs(), options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(WriteReport(*result, dir).ok());
  ASSERT_TRUE(WriteChromeTrace(*result, dir + "/trace.json").ok());

  // summary.json agrees with the step logs and the result.
  const json summary = json::parse(test::ReadFileOrDie(dir + "/summary.json"));
  EXPECT_EQ(summary["scenario"], "two_jobs");
  EXPECT_EQ(summary["capacity_bytes"], 192 * kMiB);
  ASSERT_EQ(summary["jobs"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const json& job = summary["jobs"][i];
    const JobResult& r = result->jobs[i];
    SCOPED_TRACE(r.spec.name);
    EXPECT_EQ(job["name"], r.spec.name);
    EXPECT_EQ(job["failure"], "");
    EXPECT_EQ(job["stream_priority"], i == 0 ? "high" : "low");  // by role
    EXPECT_GT(job["solo_steps_per_s"].get<double>(), 0);
    const auto rows = ReadCsv(dir + "/" + r.spec.name + ".steps.csv");
    ASSERT_GE(rows.size(), 3u);  // header and at least two steps
    EXPECT_EQ(rows[0][0], "time_s");
    EXPECT_EQ(job["steps"].get<int64_t>(), static_cast<int64_t>(rows.size() - 1));
    std::vector<StepRecord> from_csv;
    for (size_t k = 1; k < rows.size(); ++k) {
      StepRecord s;
      s.time_s = Number(rows[k][0]);
      s.step = static_cast<int64_t>(Number(rows[k][1]));
      EXPECT_EQ(s.step, static_cast<int64_t>(k));
      // Never above the limit the step ran under.
      EXPECT_LE(Number(rows[k][3]), Number(rows[k][5]));
      from_csv.push_back(s);
    }
    EXPECT_NEAR(job["steps_per_s"].get<double>(), SteadyStepsPerSecond(from_csv),
                1e-3 * job["steps_per_s"].get<double>() + 1e-6);
    EXPECT_NEAR(job["vs_solo"].get<double>(),
                job["steps_per_s"].get<double>() / job["solo_steps_per_s"].get<double>(), 1e-9);
  }
  // The limit cut is in the opportunistic job's log once in force.
  const auto opp_rows = ReadCsv(dir + "/opportunistic.steps.csv");
  EXPECT_EQ(Number(opp_rows[1][5]), 32 * kMiB);

  // Both timeline actions, then the release of the suspended job.
  const json& actions = summary["actions"];
  ASSERT_EQ(actions.size(), 3u);
  EXPECT_EQ(actions[0]["maxDeviceMem"], 16 * kMiB);
  EXPECT_EQ(actions[1]["perfControl"], 0);
  EXPECT_EQ(actions[2]["job"], "opportunistic");
  EXPECT_EQ(actions[2]["perfControl"], 100);
  EXPECT_GE(actions[2]["time_s"].get<double>(), actions[1]["time_s"].get<double>());
  absl::StatusOr<GPUConfig> last = ParseGPUConfig(
      test::ReadFileOrDie(dir + "/jobs/opportunistic.config.json"), "opportunistic.config.json");
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(last->perf_control, 100);
  EXPECT_EQ(last->max_device_mem.at("GPU:0"), 16 * kMiB);
  // Three phases: the start, and one per action time.
  EXPECT_EQ(summary["phases"].size(), 3u);
  EXPECT_THAT(FormatTable(*result), ::testing::HasSubstr("opportunistic maxDeviceMem 16.0 MiB"));

  // The device timeline has a row per sample and three columns per job.
  const auto timeline = ReadCsv(dir + "/device_timeline.csv");
  EXPECT_EQ(timeline.size(), result->timeline.size() + 1);
  EXPECT_EQ(timeline[0].size(), 2u + 3u * 2u);
  for (size_t k = 1; k < timeline.size(); ++k) {
    EXPECT_GE(Number(timeline[k][1]), 0);
    EXPECT_LE(Number(timeline[k][1]), 1);
  }

  // trace.json: a process per job with spans on its tracks, the actions.
  const json trace = json::parse(test::ReadFileOrDie(dir + "/trace.json"));
  std::map<int, std::string> processes;
  std::map<int, int> spans;
  int instants = 0;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      processes[e["pid"].get<int>()] = e["args"]["name"];
    }
    if (e["ph"] == "X") {
      ++spans[e["pid"].get<int>()];
      EXPECT_GE(e["dur"].get<int64_t>(), 0);
    }
    if (e["ph"] == "i") ++instants;
  }
  EXPECT_EQ(processes[1], "job guarantee (guarantee)");
  EXPECT_EQ(processes[2], "job opportunistic (opportunistic)");
  EXPECT_GT(spans[1], 0);
  EXPECT_GT(spans[2], 0);
  EXPECT_EQ(instants, 3);
  EXPECT_TRUE(std::filesystem::exists(dir + "/table.txt"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/throughput.csv"));
}

TEST(ExperimentTest, PlotsAreDrawnWithGnuplot) {
  if (system("command -v gnuplot > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "gnuplot is not installed (make deps installs gnuplot-nox)";
  }
  const std::string dir = test::MakeTempDir("experiment_plots");
  ExperimentOptions options;
  options.out_dir = dir;
  options.max_trace_spans = 0;
  Scenario s = TwoJobs();
  s.duration_s = 1;
  s.timeline.clear();
  absl::StatusOr<ExperimentResult> result = RunExperiment(s, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(WriteReport(*result, dir).ok());
  ASSERT_TRUE(WritePlots(*result, dir).ok());
  for (const char* png : {"throughput.png", "memory.png", "utilisation.png"}) {
    const std::string path = dir + "/" + png;
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    // A PNG file starts with its signature.
    EXPECT_EQ(test::ReadFileOrDie(path).substr(1, 3), "PNG") << path;
  }
}

// An interruption (the command line's Ctrl-C) ends the run early as its
// end would: the suspended job is released, every job stops at a step
// boundary, and the result keeps what was measured, marked interrupted.
TEST(ExperimentTest, AnInterruptionEndsTheRunKeepingWhatItMeasured) {
  const std::string dir = test::MakeTempDir("experiment_interrupted");
  ExperimentOptions options;
  options.out_dir = dir;
  options.max_trace_spans = 0;
  Scenario s = TwoJobs();
  s.duration_s = 600;
  s.timeline[1].at_s = 0.5;  // the suspension
  const std::string config = dir + "/jobs/opportunistic.config.json";
  // Interrupted once the opportunistic job has been suspended.
  options.interruption = [&config]() -> std::string {
    std::ifstream in(config);
    const json file = json::parse(in, nullptr, /*allow_exceptions=*/false);
    return file.is_object() && file.value("perfControl", 100) == 0 ? "SIGTERM" : "";
  };
  absl::StatusOr<ExperimentResult> result = RunExperiment(s, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->interrupted());
  EXPECT_EQ(result->interrupted_by, "SIGTERM");
  EXPECT_GE(result->interrupted_at_s, 0.5);
  EXPECT_LT(result->interrupted_at_s, s.duration_s);
  EXPECT_LT(result->wall_s, s.duration_s);
  ASSERT_FALSE(result->actions.empty());
  EXPECT_EQ(result->actions.back().action.job, "opportunistic");
  EXPECT_EQ(result->actions.back().action.perf_control, 100);  // released
  for (const JobResult& job : result->jobs) {
    EXPECT_TRUE(job.status.ok()) << job.status;
    EXPECT_FALSE(job.steps.empty()) << job.spec.name;
  }
  ASSERT_TRUE(WriteReport(*result, dir).ok());
  const json summary = json::parse(test::ReadFileOrDie(dir + "/summary.json"));
  EXPECT_EQ(summary["status"], "interrupted");
  EXPECT_EQ(summary["interrupted_by"], "SIGTERM");
}

// A job may start suspended (perfControl 0) and be released by the
// timeline: its set-up is not held at the boundary of the variables'
// initialisation, and it runs no step before the release.
TEST(ExperimentTest, AJobThatStartsSuspendedSetsUpAndRunsOnceReleased) {
  ExperimentOptions options;
  options.out_dir = test::MakeTempDir("experiment_suspended");
  options.max_trace_spans = 0;
  Scenario s = TwoJobs();
  s.duration_s = 1.5;
  s.jobs[1].perf_control = 0;
  TimelineAction release;
  release.at_s = 0.5;
  release.job = "opportunistic";
  release.perf_control = 100;
  s.timeline = {release};
  absl::StatusOr<ExperimentResult> result = RunExperiment(s, options);
  ASSERT_TRUE(result.ok()) << result.status();
  const JobResult& suspended = result->jobs[1];
  EXPECT_TRUE(suspended.status.ok()) << suspended.status;
  ASSERT_FALSE(suspended.steps.empty());
  ASSERT_EQ(result->actions.size(), 1u);
  EXPECT_GE(suspended.steps.front().time_s, result->actions[0].time_s);
}

// Interrupted before the jobs start (during the baselines), the result
// has the jobs and no steps.
TEST(ExperimentTest, AnInterruptionBeforeTheRunLeavesEmptyJobs) {
  ExperimentOptions options;
  options.out_dir = test::MakeTempDir("experiment_interrupted_early");
  options.baseline = true;
  options.interruption = [] { return std::string("SIGINT"); };
  absl::StatusOr<ExperimentResult> result = RunExperiment(TwoJobs(), options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->interrupted_by, "SIGINT");
  ASSERT_EQ(result->jobs.size(), 2u);
  for (const JobResult& job : result->jobs) EXPECT_TRUE(job.steps.empty());
}

TEST(ExperimentTest, AJobThatCannotBeBuiltIsAnErrorNamingIt) {
  ExperimentOptions options;
  options.out_dir = test::MakeTempDir("experiment_bad");
  Scenario s = TwoJobs();
  s.jobs[1].model_params["depth"] = 3;
  absl::StatusOr<ExperimentResult> result = RunExperiment(s, options);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), ::testing::HasSubstr("job 'opportunistic'"));
}

TEST(ExperimentTest, AnOutputDirectoryThatCannotBeMadeIsAnErrorNamingIt) {
  const std::string dir = test::MakeTempDir("experiment_file");
  test::WriteFileAtomically(dir + "/taken", "a file");
  ExperimentOptions options;
  options.out_dir = dir + "/taken/out";
  absl::StatusOr<ExperimentResult> result = RunExperiment(TwoJobs(), options);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), ::testing::HasSubstr(dir + "/taken/out"));
}

TEST(ScaleScenarioTest, ScalesStartsDurationsAndTheTimeline) {
  Scenario s = TwoJobs();
  s.jobs[1].start_s = 1;
  s.jobs[1].duration_s = 1.5;
  s.jobs[1].steps = 40;
  const Scenario scaled = ScaleScenario(s, 6);
  EXPECT_EQ(scaled.duration_s, 6);
  EXPECT_EQ(scaled.jobs[1].start_s, 2);
  EXPECT_EQ(scaled.jobs[1].duration_s, 3);
  EXPECT_EQ(scaled.jobs[1].steps, 40);  // steps are not time
  EXPECT_DOUBLE_EQ(scaled.timeline[0].at_s, 1.6);
  EXPECT_DOUBLE_EQ(scaled.timeline[1].at_s, 3.2);
  EXPECT_EQ(ScaleScenario(s, 0).duration_s, 3);  // 0: unchanged
}

TEST(OverrideSimGPUOptionsTest, ReplacesTheKeysGivenAndKeepsTheRest) {
  absl::StatusOr<std::string> merged =
      OverrideSimGPUOptions("memory=16GiB, mode=timing,preempt_us=100", "preempt_us=0,tflops=30");
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(*merged, "memory=16GiB,mode=timing,preempt_us=0,tflops=30");
  EXPECT_EQ(*OverrideSimGPUOptions("", "mode=functional"), "mode=functional");
  EXPECT_EQ(*OverrideSimGPUOptions("mode=timing", ""), "mode=timing");
  absl::StatusOr<std::string> bad = OverrideSimGPUOptions("mode=timing", "preempt_us=-1");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("preempt_us"));
  EXPECT_FALSE(OverrideSimGPUOptions("", "warp=9").ok());
}

TEST(MetricsTest, ThroughputSkipsTheFirstStepAndCountsStepsInAWindow) {
  std::vector<StepRecord> steps;
  for (int i = 0; i < 5; ++i) {
    StepRecord r;
    r.step = i + 1;
    r.time_s = i == 0 ? 1.0 : 2.0 + 0.5 * (i - 1);  // 1.0, then 2.0 .. 3.5
    r.step_ms = 500;
    r.gpu_share = i < 2 ? 1.0 : 0.0;
    r.host_bytes = i == 4 ? 1 : 0;
    steps.push_back(r);
  }
  EXPECT_DOUBLE_EQ(SteadyStepsPerSecond(steps), 4 / 2.5);
  EXPECT_DOUBLE_EQ(StepsPerSecondBetween(steps, 2.0, 3.0), 2.0);  // 2.0, 2.5
  EXPECT_EQ(SteadyStepsPerSecond({}), 0);
  EXPECT_EQ(StepsPerSecondBetween(steps, 3, 3), 0);
  JobSpec spec;
  spec.name = "j";
  spec.batch_size = 10;
  const JobSummary s = Summarize(spec, steps, 2.0, "");
  EXPECT_EQ(s.steps, 5);
  EXPECT_DOUBLE_EQ(s.examples_per_s, 16);
  EXPECT_DOUBLE_EQ(s.vs_solo, 0.8);
  EXPECT_DOUBLE_EQ(s.gpu_share, 0.4);
  EXPECT_EQ(s.host_fallback_steps, 1);
}

}  // namespace
}  // namespace minitf::harness
