// The scenario format written back (job_spec_json.h): what `minitf colocate
// --processes` hands each job process reads back as the same job.
#include "bench/harness/scenario/job_spec_json.h"

#include <string>

#include "bench/harness/jobs/job_trace.h"
#include "bench/harness/jobs/steps_csv.h"
#include "gtest/gtest.h"

namespace minitf::harness {
namespace {

JobSpec Parsed(const std::string& json) {
  absl::StatusOr<JobSpec> spec = ParseJobJson(json, "job.json");
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? *spec : JobSpec();
}

TEST(JobSpecJsonTest, EveryFieldOfABuiltInModelsJobReadsBack) {
  const JobSpec spec = Parsed(R"({"name": "g", "model": "cnn", "batch_size": 48,
      "model_params": {"image_size": 16, "channels": 32}, "steps": 7, "duration_s": 2.5,
      "role": "guarantee", "memory_limit": "3GiB", "perf_control": 40, "start_s": 1.25,
      "pacing": "antman", "stream_priority": "default", "input_ms": 20.5})");
  const JobSpec back = Parsed(JobSpecJson(spec));
  EXPECT_EQ(back.name, "g");
  EXPECT_EQ(back.model, "cnn");
  EXPECT_EQ(back.model_params, spec.model_params);
  EXPECT_EQ(back.batch_size, 48);
  EXPECT_EQ(back.steps, 7);
  EXPECT_EQ(back.duration_s, 2.5);
  EXPECT_EQ(back.role, JobRole::kGuarantee);
  EXPECT_EQ(back.memory_limit, int64_t{3} << 30);
  EXPECT_EQ(back.perf_control, 40);
  EXPECT_EQ(back.start_s, 1.25);
  EXPECT_EQ(back.pacing, "antman");
  EXPECT_EQ(back.stream_priority, "default");
  EXPECT_EQ(back.input_ms, 20.5);
  EXPECT_EQ(JobSpecJson(back), JobSpecJson(spec));
}

TEST(JobSpecJsonTest, AGraphJobsFilesAreWrittenAbsolute) {
  JobSpec spec = Parsed(R"({"name": "t", "model": "graphdef",
      "graph": {"file": "models/train.pb", "init": "init", "train": "train_op",
                "feeds": {"x:0": {"shape": [2, 3], "dtype": "float32", "random": "uniform",
                                  "low": -1, "high": 2},
                          "y:0": "data/y.npy"}}})");
  const JobSpec back = Parsed(JobSpecJson(spec));
  EXPECT_TRUE(back.graph.file.starts_with("/")) << back.graph.file;
  EXPECT_TRUE(back.graph.file.ends_with("/models/train.pb")) << back.graph.file;
  EXPECT_EQ(back.graph.init, "init");
  EXPECT_EQ(back.graph.train, "train_op");
  ASSERT_EQ(back.graph.feeds.size(), 2u);
  for (const FeedSpec& feed : back.graph.feeds) {
    if (feed.tensor == "x:0") {
      EXPECT_EQ(feed.shape, (std::vector<int64_t>{2, 3}));
      EXPECT_EQ(feed.random, "uniform");
      EXPECT_EQ(feed.low, -1);
      EXPECT_EQ(feed.high, 2);
    } else {
      EXPECT_EQ(feed.tensor, "y:0");
      EXPECT_TRUE(feed.file.starts_with("/") && feed.file.ends_with("/data/y.npy")) << feed.file;
    }
  }
}

TEST(JobSpecJsonTest, AOneJobScenarioKeepsTheDeviceAndDuration) {
  Scenario scenario;
  scenario.name = "exp";
  scenario.simgpu_options = "memory=2GiB,shared=x";
  scenario.duration_s = 12;
  scenario.jobs.push_back(Parsed(R"({"name": "a", "model": "mlp"})"));
  scenario.jobs.push_back(Parsed(R"({"name": "b", "model": "mlp"})"));
  absl::StatusOr<Scenario> back =
      ParseScenarioJson(OneJobScenarioJson(scenario, scenario.jobs[1]), "exp.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->name, "exp");
  EXPECT_EQ(back->simgpu_options, "memory=2GiB,shared=x");
  EXPECT_EQ(back->duration_s, 12);
  ASSERT_EQ(back->jobs.size(), 1u);
  EXPECT_EQ(back->jobs[0].name, "b");
  EXPECT_TRUE(back->timeline.empty());
}

TEST(JobOutputsTest, StepsAndTraceFilesReadBack) {
  std::vector<StepRecord> steps(2);
  steps[0] = {0.5, 1, 480.25, 1000, 0, 4096, 100, 0.5};
  steps[1] = {1.25, 2, 750.5, 2000, 300, 4096, 40, 0.25};
  absl::StatusOr<std::vector<StepRecord>> read = ParseStepsCsv(StepsCsv(steps), "a.steps.csv");
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[1].step, 2);
  EXPECT_EQ((*read)[1].host_bytes, 300);
  EXPECT_EQ((*read)[1].perf_control, 40);
  EXPECT_DOUBLE_EQ((*read)[1].gpu_share, 0.25);
  EXPECT_DOUBLE_EQ((*read)[0].step_ms, 480.25);
  absl::StatusOr<std::vector<StepRecord>> bad =
      ParseStepsCsv(StepsCsv(steps) + "1,x\n", "a.steps.csv");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("'a.steps.csv' line 4"), std::string::npos)
      << bad.status();

  const std::vector<TraceSpan> spans = {{"step 1", "", "steps", 10, 5},
                                        {"dense/MatMul", "MatMul", "GPU compute stream", 11, 2}};
  std::vector<TraceSpan> spans_back;
  int64_t dropped = 0;
  ASSERT_TRUE(ParseTraceSpansJson(TraceSpansJson(spans, 3), "t.json", &spans_back, &dropped).ok());
  EXPECT_EQ(dropped, 3);
  ASSERT_EQ(spans_back.size(), 2u);
  EXPECT_EQ(spans_back[1].name, "dense/MatMul");
  EXPECT_EQ(spans_back[1].op, "MatMul");
  EXPECT_EQ(spans_back[1].track, "GPU compute stream");
  EXPECT_EQ(spans_back[1].start_us, 11);
  EXPECT_EQ(spans_back[1].dur_us, 2);
  EXPECT_EQ(ParseTraceSpansJson(R"({"spans": [[1]], "dropped_steps": 0})", "t.json", &spans_back,
                                &dropped)
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace minitf::harness
