// The `graphdef` job model: a scenario job that trains a graph read from a
// file. The shipped ResNet-50 + BERT scenario reads; a TensorFlow graph fed
// from .npy files trains to TensorFlow's loss and runs in an experiment;
// random feeds have their kinds, dtypes and shapes; bad jobs are errors
// naming the field or the job.
#include "bench/harness/jobs/graph_job.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/harness/experiment/experiment.h"
#include "bench/harness/scenario/scenario.h"
#include "device/gpu/gpu_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/npy_io.h"
#include "session/session.h"
#include "stream/sim_gpu/sim_gpu_executor.h"

namespace minitf::harness {
namespace {

using ::testing::AllOf;
using ::testing::EndsWith;
using ::testing::HasSubstr;

const std::string kSource = MINITF_SOURCE_DIR;
const std::string kLinear = kSource + "/tests/fixtures/tf/linear_gd/";

// A scenario of one graphdef job training linear_gd from its files.
std::string LinearScenario(const std::string& graph_extra = "",
                           const std::string& job_extra = R"("batch_size": 16, )") {
  return absl::StrCat(R"({"name": "linear",
    "device": {"platform": "SimGPU", "simgpu": "mode=functional"},
    "duration_s": 1, "jobs": [{"name": "linear", "model": "graphdef", )",
                      job_extra, R"("graph": {"file": ")", kLinear, R"(graph.pb",
      "init": "init", "train": "train", )",
                      graph_extra, R"("feeds": {"x:0": ")", kLinear, R"(x.npy", "y:0": ")",
                      kLinear, R"(y.npy"}}}]})");
}

TEST(GraphJobTest, ShippedScenarioReadsResNet50AndBertFromTheFixtures) {
  absl::StatusOr<Scenario> s =
      LoadScenario(kSource + "/bench/scenarios/tensorflow/resnet50_bert.json");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->jobs.size(), 2u);
  const JobSpec& resnet = s->jobs[0];
  const JobSpec& bert = s->jobs[1];
  EXPECT_EQ(resnet.model, "graphdef");
  // Relative to the scenario's directory, whatever the working directory.
  EXPECT_THAT(resnet.graph.file, EndsWith("tests/fixtures/tf/resnet50_train/graph.pb"));
  EXPECT_TRUE(std::filesystem::exists(resnet.graph.file)) << resnet.graph.file;
  EXPECT_TRUE(std::filesystem::exists(bert.graph.file)) << bert.graph.file;
  EXPECT_EQ(resnet.graph.train, "train");
  EXPECT_EQ(resnet.graph.feeds.size(), 2u);
  EXPECT_EQ(bert.graph.feeds.size(), 3u);
  // Examples per step: the first feed's batch dimension.
  EXPECT_EQ(resnet.batch_size, 32);
  EXPECT_EQ(bert.batch_size, 8);
}

// The job's graph and feeds are exactly the fixture's: 100 steps give
// TensorFlow's final loss.
TEST(GraphJobTest, TensorFlowGraphFedFromFilesTrainsToTensorFlowsLoss) {
  absl::StatusOr<Scenario> s = ParseScenarioJson(LinearScenario(), "linear.json");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->jobs[0].batch_size, 16);
  absl::StatusOr<JobModel> m = BuildJobModel(s->jobs[0]);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->feeds.size(), 2u);
  EXPECT_EQ(m->feeds[0].first, "x:0");
  EXPECT_EQ(m->feeds[0].second.shape(), TensorShape({16, 3}));
  auto session = NewSession(SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Create(m->graph).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {m->init}, nullptr).ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE((*session)->Run(m->feeds, {}, {m->train}, nullptr).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run(m->feeds, {"loss:0"}, {}, &out).ok());
  absl::StatusOr<Tensor> want = ReadNpyFile(kLinear + "loss.npy");
  ASSERT_TRUE(want.ok()) << want.status();
  const float tf_loss = want->flat<float>()(0);
  EXPECT_NEAR(out[0].flat<float>()(0), tf_loss, 1e-5 * std::abs(tf_loss) + 1e-6);
}

// Every op of the two graphs runs on SimGPU, and in timing mode the float
// arithmetic is skipped: what runs its body is bookkeeping (variables,
// assignments, integer shape computations).
TEST(GraphJobTest, ResNet50AndBertTrainAStepOnSimGPUInTimingMode) {
  absl::StatusOr<Scenario> s =
      LoadScenario(kSource + "/bench/scenarios/tensorflow/resnet50_bert.json");
  ASSERT_TRUE(s.ok()) << s.status();
  for (const JobSpec& job : s->jobs) {
    SCOPED_TRACE(job.name);
    absl::StatusOr<JobModel> m = BuildJobModel(job);
    ASSERT_TRUE(m.ok()) << m.status();
    SessionOptions options;
    options.config.gpu_options.platform = "SimGPU";
    options.config.gpu_options.simgpu_options = "mode=timing,memory=16GiB";
    auto session = NewSession(options);
    ASSERT_TRUE(session.ok()) << session.status();
    ASSERT_TRUE((*session)->Create(m->graph).ok());
    ASSERT_TRUE((*session)->Run({}, {}, {m->init}, nullptr).ok());
    const se::SimGPUExecutor* sim = nullptr;
    for (Device* d : (*session)->ListDevices()) {
      if (auto* gpu = dynamic_cast<GPUDevice*>(d); gpu != nullptr) {
        sim = dynamic_cast<const se::SimGPUExecutor*>(gpu->executor());
      }
    }
    ASSERT_NE(sim, nullptr);
    const int64_t kernels = sim->KernelCount(), bodies = sim->BodyCount();
    absl::Status step = (*session)->Run(m->feeds, {}, {m->train}, nullptr);
    ASSERT_TRUE(step.ok()) << step;
    const int64_t step_kernels = sim->KernelCount() - kernels;
    const int64_t step_bodies = sim->BodyCount() - bodies;
    std::printf("%s: %lld kernels, %lld ran their body\n", job.name.c_str(),
                static_cast<long long>(step_kernels), static_cast<long long>(step_bodies));
    // ResNet-50: 1330 kernels, 434 bodies (428 VariableV2); BERT: 2788 and
    // 658 (602 VariableV2).
    EXPECT_LT(2 * step_bodies, step_kernels);
  }
}

TEST(GraphJobTest, GraphJobRunsInAnExperiment) {
  absl::StatusOr<Scenario> s = ParseScenarioJson(LinearScenario(), "linear.json");
  ASSERT_TRUE(s.ok()) << s.status();
  ExperimentOptions options;
  options.out_dir = (std::filesystem::temp_directory_path() /
                     absl::StrCat("graph_job_test_", getpid()))
                        .string();
  options.seconds = 0.5;
  absl::StatusOr<ExperimentResult> r = RunExperiment(*s, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->jobs.size(), 1u);
  EXPECT_TRUE(r->jobs[0].status.ok()) << r->jobs[0].status;
  EXPECT_GT(r->jobs[0].steps.size(), 0u);
  std::filesystem::remove_all(options.out_dir);
}

TEST(GraphJobTest, RandomFeedsHaveTheirKindDtypeAndShape) {
  std::mt19937_64 rng(7);
  FeedSpec ints{.tensor = "labels:0", .dtype = "int32", .shape = {500}, .random = "uniform_int",
                .low = 3, .high = 7};
  absl::StatusOr<Tensor> labels = MakeFeed("j", ints, &rng);
  ASSERT_TRUE(labels.ok()) << labels.status();
  ASSERT_EQ(labels->dtype(), DT_INT32);
  std::set<int32_t> seen;
  for (int i = 0; i < 500; ++i) seen.insert(labels->flat<int32_t>()(i));
  EXPECT_EQ(seen, (std::set<int32_t>{3, 4, 5, 6}));  // high excluded

  FeedSpec normal{.tensor = "x:0", .dtype = "float32", .shape = {4, 250}, .random = "normal"};
  absl::StatusOr<Tensor> x = MakeFeed("j", normal, &rng);
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->shape(), TensorShape({4, 250}));
  double sum = 0, squares = 0;
  for (int i = 0; i < 1000; ++i) {
    sum += x->flat<float>()(i);
    squares += x->flat<float>()(i) * x->flat<float>()(i);
  }
  EXPECT_NEAR(sum / 1000, 0, 0.15);
  EXPECT_NEAR(squares / 1000, 1, 0.2);

  FeedSpec uniform{.tensor = "u:0", .dtype = "float64", .shape = {200}, .random = "uniform",
                   .low = -2, .high = -1};
  absl::StatusOr<Tensor> u = MakeFeed("j", uniform, &rng);
  ASSERT_TRUE(u.ok()) << u.status();
  for (int i = 0; i < 200; ++i) {
    EXPECT_GE(u->flat<double>()(i), -2);
    EXPECT_LT(u->flat<double>()(i), -1);
  }
  FeedSpec ones{.tensor = "m:0", .dtype = "int64", .shape = {3}, .random = "ones"};
  absl::StatusOr<Tensor> m = MakeFeed("j", ones, &rng);
  ASSERT_TRUE(m.ok()) << m.status();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(m->flat<int64_t>()(i), 1);
  FeedSpec zeros{.tensor = "b:0", .dtype = "bool", .shape = {2}, .random = "zeros"};
  absl::StatusOr<Tensor> b = MakeFeed("j", zeros, &rng);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_FALSE(b->flat<bool>()(0));
  FeedSpec coins{.tensor = "c:0", .dtype = "bool", .shape = {200}, .random = "uniform_int",
                 .low = 0, .high = 2};
  absl::StatusOr<Tensor> c = MakeFeed("j", coins, &rng);
  ASSERT_TRUE(c.ok()) << c.status();
  int heads = 0;
  for (int i = 0; i < 200; ++i) heads += c->flat<bool>()(i) ? 1 : 0;
  EXPECT_GT(heads, 0);
  EXPECT_LT(heads, 200);

  FeedSpec missing{.tensor = "x:0", .file = "/nonexistent/x.npy"};
  absl::StatusOr<Tensor> f = MakeFeed("j", missing, &rng);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(),
              AllOf(HasSubstr("job 'j'"), HasSubstr("x:0"), HasSubstr("/nonexistent/x.npy")));
}

void ExpectParseError(const std::string& text, const std::string& what) {
  absl::StatusOr<Scenario> s = ParseScenarioJson(text, "bad.json");
  ASSERT_FALSE(s.ok()) << what;
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
  EXPECT_THAT(s.status().message(), HasSubstr(what));
}

TEST(GraphJobTest, BadGraphJobsAreInvalidArgumentNamingTheField) {
  ExpectParseError(R"({"jobs": [{"name": "a", "model": "graphdef"}]})", "jobs[0].graph");
  ExpectParseError(LinearScenario("", R"("model_params": {"hidden": 4}, )"),
                   "jobs[0].model_params");
  ExpectParseError(R"({"jobs": [{"name": "a", "model": "mlp", "graph": {}}]})",
                   "is for graphdef jobs");
  ExpectParseError(LinearScenario(R"("trian": "train", )"), "did you mean \"train\"");
  ExpectParseError(R"({"jobs": [{"name": "a", "model": "graphdef",
      "graph": {"file": "g.pb", "train": "t",
                "feeds": {"x:0": {"shape": [2], "dtype": "float16", "random": "normal"}}}}]})",
                   "jobs[0].graph.feeds.x:0.dtype");
  ExpectParseError(R"({"jobs": [{"name": "a", "model": "graphdef",
      "graph": {"file": "g.pb", "train": "t",
                "feeds": {"x:0": {"shape": [2], "dtype": "int32", "random": "uniform_int"}}}}]})",
                   "high");
  ExpectParseError(R"({"jobs": [{"name": "a", "model": "graphdef",
      "graph": {"file": "g.pb", "train": "t",
                "feeds": {"x:0": {"shape": [2], "dtype": "float32", "random": "uniform",
                                  "low": 1, "high": 1}}}}]})",
                   "must be above low");
  ExpectParseError(R"({"jobs": [{"name": "a", "model": "graphdef",
      "graph": {"file": "g.pb", "train": "t", "feeds": {"x:0": 3}}}]})",
                   "jobs[0].graph.feeds.x:0 must be a .npy file name or an object");
  ExpectParseError(R"({"jobs": [{"name": "a", "model": "graphdef", "graph": {"file": "g.pb"}}]})",
                   "jobs[0].graph.train");
  absl::StatusOr<Scenario> csv = ParseScenarioCsv(
      "submit_time,model_name,batch_size,iterations,gpu_requests,priority\n0,graphdef,8,10,1,0\n",
      "jobs.csv");
  ASSERT_FALSE(csv.ok());
  EXPECT_THAT(csv.status().message(), HasSubstr("needs a JSON scenario"));
}

TEST(GraphJobTest, OpsFeedsAndFilesTheGraphLacksAreErrorsNamingTheJob) {
  absl::StatusOr<Scenario> s = ParseScenarioJson(LinearScenario(), "linear.json");
  ASSERT_TRUE(s.ok()) << s.status();
  JobSpec job = s->jobs[0];
  job.graph.train = "trian";
  absl::StatusOr<JobModel> m = BuildJobModel(job);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), AllOf(HasSubstr("job 'linear'"), HasSubstr("'trian'")));
  job = s->jobs[0];
  job.graph.feeds[0].tensor = "z:0";
  m = BuildJobModel(job);
  EXPECT_THAT(m.status().message(), AllOf(HasSubstr("job 'linear'"), HasSubstr("'z'")));
  job = s->jobs[0];
  job.graph.file = "/nonexistent/graph.pb";
  m = BuildJobModel(job);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound) << m.status();
  EXPECT_THAT(m.status().message(),
              AllOf(HasSubstr("job 'linear'"), HasSubstr("/nonexistent/graph.pb")));
}

}  // namespace
}  // namespace minitf::harness
