// JobRunner: a job runs its steps in its own session and records what its
// statistics sampled; two jobs share one SimGPU's capacity with their own
// limits; a job waiting for its start time stops when asked.
#include "bench/harness/jobs/job_runner.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/test_files.h"

namespace minitf::harness {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
// Sessions naming the same option string share one simulated device.
constexpr char kSimGPU[] = "memory=96MiB,mode=functional";

JobRunner::Options Options(const std::string& dir, const std::string& name, int64_t steps,
                           int64_t limit) {
  JobRunner::Options o;
  o.spec.name = name;
  o.spec.model = "mlp";
  o.spec.model_params = {{"features", 16}, {"hidden", 64}};
  o.spec.batch_size = 64;
  o.spec.steps = steps;
  o.spec.memory_limit = limit;
  o.platform = "SimGPU";
  o.simgpu_options = kSimGPU;
  o.config_file = dir + "/" + name + ".config.json";
  o.status_file = dir + "/" + name + ".status.json";
  o.experiment_duration_s = 120;
  test::WriteFileAtomically(o.config_file, "{}");
  return o;
}

TEST(JobRunnerTest, TwoJobsRunTheirStepsUnderTheirOwnLimits) {
  const std::string dir = test::MakeTempDir("job_runner");
  auto a = JobRunner::Create(Options(dir, "a", 6, 32 * kMiB));
  auto b = JobRunner::Create(Options(dir, "b", 4, 16 * kMiB));
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  (*a)->Start(absl::Now());
  (*b)->Start(absl::Now());
  (*a)->Join();
  (*b)->Join();
  EXPECT_TRUE((*a)->status().ok()) << (*a)->status();
  EXPECT_TRUE((*b)->finished());
  const std::vector<StepRecord> ra = (*a)->Records();
  const std::vector<StepRecord> rb = (*b)->Records();
  ASSERT_EQ(ra.size(), 6u);
  ASSERT_EQ(rb.size(), 4u);
  for (size_t i = 0; i < ra.size(); ++i) {
    EXPECT_EQ(ra[i].step, static_cast<int64_t>(i + 1));
    EXPECT_EQ(ra[i].limit_bytes, 32 * kMiB);
    EXPECT_GT(ra[i].device_bytes, 0);
    EXPECT_GE(ra[i].step_ms, 0);
    if (i > 0) {
      EXPECT_GE(ra[i].time_s, ra[i - 1].time_s);
    }
  }
  for (const StepRecord& r : rb) EXPECT_EQ(r.limit_bytes, 16 * kMiB);
  // Each job reports through its own status file.
  EXPECT_NE(test::ReadFileOrDie(dir + "/a.status.json").find("deviceMemLimit"),
            std::string::npos);
  EXPECT_NE(test::ReadFileOrDie(dir + "/b.status.json").find("deviceMemLimit"),
            std::string::npos);
}

TEST(JobRunnerTest, AJobWaitingForItsStartStopsWhenAsked) {
  const std::string dir = test::MakeTempDir("job_runner");
  JobRunner::Options o = Options(dir, "late", 0, 16 * kMiB);
  o.spec.start_s = 3600;
  auto job = JobRunner::Create(o);
  ASSERT_TRUE(job.ok()) << job.status();
  (*job)->Start(absl::Now());
  (*job)->RequestStop();
  (*job)->Join();
  EXPECT_TRUE((*job)->finished());
  EXPECT_EQ((*job)->steps_done(), 0);
}

TEST(JobRunnerTest, ATracedPacedJobRecordsItsKernelsSlotsAndSamples) {
  const std::string dir = test::MakeTempDir("job_runner");
  JobRunner::Options o = Options(dir, "paced", 8, 32 * kMiB);
  o.max_trace_spans = 100000;
  // A step whose kernels take milliseconds: far more than its host work, so
  // at 10 % the job must idle, however loaded the machine's cores are (with
  // the small model, a loaded host alone kept it below 10 %, and pacing
  // rightly inserted nothing).
  o.spec.model_params = {{"features", 256}, {"hidden", 512}};
  o.spec.batch_size = 256;
  test::WriteFileAtomically(o.config_file, R"({"perfControl": 10})");
  auto job = JobRunner::Create(o);
  ASSERT_TRUE(job.ok()) << job.status();
  const absl::Time start = absl::Now();
  (*job)->Start(start);
  (*job)->Join();
  ASSERT_TRUE((*job)->status().ok()) << (*job)->status();
  const absl::Duration wall = absl::Now() - start;

  const JobTrace* trace = (*job)->trace();
  ASSERT_NE(trace, nullptr);
  EXPECT_EQ(trace->dropped_steps(), 0);
  std::map<std::string, int> spans_per_track;
  int64_t last_compute_end = 0;
  for (const TraceSpan& span : trace->spans()) {
    ++spans_per_track[span.track];
    EXPECT_GE(span.start_us, 0) << span.name;
    EXPECT_GE(span.dur_us, 0) << span.name;
    EXPECT_LE(span.start_us + span.dur_us, absl::ToInt64Microseconds(wall)) << span.name;
    if (span.track == "GPU compute stream") {
      // Stream order: kernels do not overlap on the stream.
      EXPECT_GE(span.start_us, last_compute_end) << span.name;
      last_compute_end = span.start_us + span.dur_us;
      EXPECT_FALSE(span.op.empty());
    }
  }
  // One span per step, plus the boundaries' pacing sleeps, on "steps".
  EXPECT_GE(spans_per_track["steps"], 8);
  EXPECT_GT(spans_per_track["GPU compute stream"], 8);
  EXPECT_GT(spans_per_track["GPU copies"], 0);
  // Pacing inserts idle slots before launches (from step 2 on).
  EXPECT_GT(spans_per_track["idle slots"], 0);

  const JobSample sample = (*job)->Sample();
  EXPECT_GT(sample.device_pool_bytes, 0);
  EXPECT_GE(sample.device_pool_bytes, sample.device_bytes_in_use);
  EXPECT_EQ(sample.device_limit_bytes, 32 * kMiB);
  EXPECT_GT(sample.gpu_busy, absl::ZeroDuration());
  EXPECT_EQ((*job)->device_capacity_bytes(), 96 * kMiB);
}

// input_ms: each step first waits its input on the host, so N steps take
// at least N * input_ms, and the GPU is idle meanwhile: its busy time fits
// in the wall time left over.
TEST(JobRunnerTest, EachStepWaitsItsInputWithTheGpuIdle) {
  const std::string dir = test::MakeTempDir("job_runner");
  constexpr int kSteps = 4;
  constexpr double kInputMs = 50;
  JobRunner::Options o = Options(dir, "fed", kSteps, 32 * kMiB);
  o.spec.input_ms = kInputMs;
  auto job = JobRunner::Create(o);
  ASSERT_TRUE(job.ok()) << job.status();
  const absl::Duration busy_before = (*job)->Sample().gpu_busy;
  const absl::Time start = absl::Now();
  (*job)->Start(start);
  (*job)->Join();
  const absl::Duration wall = absl::Now() - start;
  ASSERT_TRUE((*job)->status().ok()) << (*job)->status();
  const std::vector<StepRecord> records = (*job)->Records();
  ASSERT_EQ(records.size(), static_cast<size_t>(kSteps));
  const absl::Duration input = kSteps * absl::Milliseconds(kInputMs);
  EXPECT_GE(wall, input);
  // Step rates include the wait: every step's time (Run to Run) holds it.
  for (const StepRecord& r : records) EXPECT_GE(r.step_ms, kInputMs) << "step " << r.step;
  EXPECT_GE(absl::Seconds(records.front().time_s), absl::Milliseconds(kInputMs));
  const absl::Duration busy = (*job)->Sample().gpu_busy - busy_before;
  EXPECT_GT(busy, absl::ZeroDuration());
  EXPECT_LE(busy, wall - input);
}

// A step's GPU share covers its own time, Run to Run: the step during whose
// boundary the job was suspended (perfControl 0) kept the GPU busy for a
// small part of that time, not for what its Run alone measured.
TEST(JobRunnerTest, AStepsGpuShareCoversTheSuspensionAtItsBoundary) {
  const std::string dir = test::MakeTempDir("job_runner");
  JobRunner::Options o = Options(dir, "held", 3, 32 * kMiB);
  // A slow modeled GPU: the steps are GPU-bound, their Runs busy most of
  // their time.
  o.simgpu_options = "memory=96MiB,mode=timing,tflops=0.002,hbm_gbps=0.5";
  auto job = JobRunner::Create(o);
  ASSERT_TRUE(job.ok()) << job.status();
  test::WriteFileAtomically(o.config_file, R"({"perfControl": 0})");
  ASSERT_TRUE((*job)->AwaitPerfControl(0, absl::Seconds(10)).ok());
  // Held at its first boundary for a second, then released.
  (*job)->Start(absl::Now());
  absl::SleepFor(absl::Seconds(1));
  test::WriteFileAtomically(o.config_file, R"({"perfControl": 100})");
  (*job)->Join();
  ASSERT_TRUE((*job)->status().ok()) << (*job)->status();
  const std::vector<StepRecord> records = (*job)->Records();
  ASSERT_GE(records.size(), 1u);
  const StepRecord& held = records.front();
  // The release comes a second after Start; the step's clock starts a
  // little after Start, so the step holds a little under the second.
  ASSERT_GE(held.step_ms, 900) << "the first step's time holds the suspension";
  // Its Run took a few milliseconds of GPU time; over the second and more
  // of the step that is well under 5 %.
  EXPECT_LT(held.gpu_share, 0.05);
  double busy_ms = 0, wall_ms = 0;
  for (const StepRecord& r : records) {
    busy_ms += r.gpu_share * r.step_ms;
    wall_ms += r.step_ms;
  }
  EXPECT_LT(busy_ms, 0.05 * wall_ms);
}

// A stop, or the job's end, ends the input wait at once: the step it was
// waiting for does not run.
TEST(JobRunnerTest, AStopOrTheEndCutsTheInputWait) {
  const std::string dir = test::MakeTempDir("job_runner");
  const absl::Duration input = absl::Milliseconds(kMaxInputMs);
  {
    JobRunner::Options o = Options(dir, "stopped", 1, 16 * kMiB);
    o.spec.input_ms = kMaxInputMs;
    auto job = JobRunner::Create(o);
    ASSERT_TRUE(job.ok()) << job.status();
    const absl::Time start = absl::Now();
    (*job)->Start(start);
    (*job)->RequestStop();
    (*job)->Join();
    EXPECT_LT(absl::Now() - start, input);
    EXPECT_TRUE((*job)->status().ok()) << (*job)->status();
    EXPECT_EQ((*job)->steps_done(), 0);
  }
  {
    JobRunner::Options o = Options(dir, "ended", 1, 16 * kMiB);
    o.spec.input_ms = kMaxInputMs;
    o.experiment_duration_s = 0.05;
    auto job = JobRunner::Create(o);
    ASSERT_TRUE(job.ok()) << job.status();
    const absl::Time start = absl::Now();
    (*job)->Start(start);
    (*job)->Join();
    EXPECT_LT(absl::Now() - start, input);
    EXPECT_TRUE((*job)->status().ok()) << (*job)->status();
    EXPECT_EQ((*job)->steps_done(), 0);
  }
}

TEST(JobRunnerTest, BadSpecsFailCreateNamingTheJob) {
  const std::string dir = test::MakeTempDir("job_runner");
  JobRunner::Options o = Options(dir, "broken", 1, 16 * kMiB);
  o.spec.model_params = {{"depth", 3}};
  auto job = JobRunner::Create(o);
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(job.status().message(), ::testing::HasSubstr("job 'broken'"));
}

// A CNN whose steps SimGPU computes on the host: each takes far longer
// than the experiments below last.
JobRunner::Options SlowCnn(const std::string& dir, double experiment_s) {
  JobRunner::Options o = Options(dir, "slow", 0, 0);
  o.spec.model = "cnn";
  o.spec.model_params = {{"image_size", 32}, {"channels", 128}};
  o.spec.batch_size = 64;
  o.platform = "SimGPU";
  o.simgpu_options = "memory=2GiB,mode=compute";
  o.experiment_duration_s = experiment_s;
  return o;
}

// The experiment's end cancels a step in flight: the job ends then, as it
// would have at a step boundary, without counting the cut step and
// without an error.
TEST(JobRunnerTest, TheEndOfTheExperimentCutsTheStepInFlight) {
  const std::string dir = test::MakeTempDir("job_runner");
  auto job = JobRunner::Create(SlowCnn(dir, 0.05));
  ASSERT_TRUE(job.ok()) << job.status();
  (*job)->Start(absl::Now());
  (*job)->Join();
  EXPECT_TRUE((*job)->status().ok()) << (*job)->status();
  EXPECT_TRUE((*job)->Records().empty());
}

// Set-up is bounded too: variables that take longer to initialise than
// allowed fail Create with DEADLINE_EXCEEDED naming the job.
TEST(JobRunnerTest, ASetUpLongerThanItsBoundFailsCreate) {
  const std::string dir = test::MakeTempDir("job_runner");
  JobRunner::Options o = SlowCnn(dir, 60);
  o.spec.model_params["channels"] = 1024;
  o.setup_timeout = absl::Microseconds(1);
  auto job = JobRunner::Create(o);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), absl::StatusCode::kDeadlineExceeded) << job.status();
  EXPECT_THAT(job.status().message(), ::testing::HasSubstr("job 'slow'"));
}

}  // namespace
}  // namespace minitf::harness
