// Scenario files of the co-location harness: good files parse to what they
// say; bad ones are InvalidArgument naming the file and the field.
#include "bench/harness/scenario.h"

#include <filesystem>
#include <string>
#include <vector>

#include "bench/harness/job_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/test_files.h"

namespace minitf::harness {
namespace {

using ::testing::HasSubstr;

constexpr char kGood[] = R"({
  "name": "two_jobs",
  "device": {"simgpu": "memory=8GiB,mode=timing"},
  "duration_s": 30,
  "jobs": [
    {"name": "g", "model": "cnn", "batch_size": 64, "model_params": {"channels": 16},
     "role": "guarantee", "memory_limit": "4GiB"},
    {"name": "o", "model": "mlp", "batch_size": 128, "steps": 500, "role": "opportunistic",
     "memory_limit": 1073741824, "perf_control": 50, "start_s": 2.5, "pacing": "antman",
     "stream_priority": "default"}
  ],
  "timeline": [
    {"at_s": 20, "job": "o", "perfControl": 0},
    {"at_s": 10, "job": "o", "maxDeviceMem": "512MiB", "perfControl": 10}
  ]
})";

TEST(ScenarioTest, ParsesEveryFieldOfAGoodFile) {
  absl::StatusOr<Scenario> s = ParseScenarioJson(kGood, "good.json");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->name, "two_jobs");
  EXPECT_EQ(s->simgpu_options, "memory=8GiB,mode=timing");
  EXPECT_EQ(s->duration_s, 30);
  ASSERT_EQ(s->jobs.size(), 2u);
  const JobSpec& g = s->jobs[0];
  EXPECT_EQ(g.name, "g");
  EXPECT_EQ(g.model, "cnn");
  EXPECT_EQ(g.batch_size, 64);
  EXPECT_EQ(g.model_params.at("channels"), 16);
  EXPECT_EQ(g.role, JobRole::kGuarantee);
  EXPECT_EQ(g.memory_limit, int64_t{4} << 30);
  EXPECT_EQ(g.perf_control, 100);
  EXPECT_EQ(g.pacing, "precise");
  EXPECT_EQ(g.stream_priority, "");
  EXPECT_EQ(JobStreamPriority(g), se::StreamPriority::kHighest);  // by role
  const JobSpec& o = s->jobs[1];
  EXPECT_EQ(o.steps, 500);
  EXPECT_EQ(o.role, JobRole::kOpportunistic);
  EXPECT_EQ(o.memory_limit, int64_t{1} << 30);
  EXPECT_EQ(o.perf_control, 50);
  EXPECT_EQ(o.start_s, 2.5);
  EXPECT_EQ(o.pacing, "antman");
  EXPECT_EQ(JobStreamPriority(o), se::StreamPriority::kDefault);  // as given
  JobSpec by_role = o;
  by_role.stream_priority.clear();
  EXPECT_EQ(JobStreamPriority(by_role), se::StreamPriority::kLowest);
  // Sorted by time.
  ASSERT_EQ(s->timeline.size(), 2u);
  EXPECT_EQ(s->timeline[0].at_s, 10);
  EXPECT_EQ(s->timeline[0].max_device_mem, int64_t{512} << 20);
  EXPECT_EQ(s->timeline[0].perf_control, 10);
  EXPECT_EQ(s->timeline[1].at_s, 20);
  EXPECT_FALSE(s->timeline[1].max_device_mem.has_value());
  EXPECT_EQ(s->timeline[1].perf_control, 0);
}

struct BadCase {
  const char* content;
  const char* expected;  // in the message
};

TEST(ScenarioTest, BadFilesNameTheFileAndTheField) {
  const std::vector<BadCase> cases = {
      {"", "not valid JSON"},
      {R"({"jobs": [)", "not valid JSON"},
      {"[]", "must be a JSON object"},
      {"{}", "jobs must be an array"},
      {R"({"jobs": []})", "jobs is empty"},
      {R"({"jobs": [5]})", "jobs[0] must be an object"},
      {R"({"jobs": [{"model": "cnn"}]})", "jobs[0].name is missing"},
      {R"({"jobs": [{"name": "a b", "model": "cnn"}]})", "jobs[0].name must be non-empty"},
      {R"({"jobs": [{"name": "a", "model": "rnn"}]})", "jobs[0].model must be mlp, cnn or"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "batch_size": 0}]})", "jobs[0].batch_size"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "batch_size": "64"}]})", "jobs[0].batch_size"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "role": "boss"}]})", "jobs[0].role"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "memory_limit": "lots"}]})",
       "jobs[0].memory_limit must be a positive size"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "memory_limit": -1}]})",
       "jobs[0].memory_limit"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "perf_control": 101}]})",
       "jobs[0].perf_control must be an integer in 0..100"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "start_s": -1}]})", "jobs[0].start_s"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "pacing": "fast"}]})", "jobs[0].pacing"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "stream_priority": "urgent"}]})",
       "jobs[0].stream_priority"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "stream_priority": 1}]})",
       "jobs[0].stream_priority"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "model_params": {"channels": 0}}]})",
       "jobs[0].model_params.channels"},
      {R"({"jobs": [{"name": "a", "model": "cnn"}, {"name": "a", "model": "mlp"}]})",
       "jobs[1].name \"a\" is given twice"},
      {R"({"device": {"simgpu": "memory=lots"}, "jobs": [{"name": "a", "model": "cnn"}]})",
       "device.simgpu"},
      {R"({"device": {"platform": "TPU"}, "jobs": [{"name": "a", "model": "cnn"}]})",
       "device.platform"},
      {R"({"duration_s": "long", "jobs": [{"name": "a", "model": "cnn"}]})", "duration_s"},
      {R"({"jobs": [{"name": "a", "model": "cnn"}], "timeline": {}})", "timeline must be"},
      {R"({"jobs": [{"name": "a", "model": "cnn"}], "timeline": [{"job": "a"}]})",
       "timeline[0].at_s is missing"},
      {R"({"jobs": [{"name": "a", "model": "cnn"}], "timeline": [{"at_s": 1, "job": "b",
          "perfControl": 5}]})",
       "timeline[0].job names no job"},
      {R"({"jobs": [{"name": "a", "model": "cnn"}], "timeline": [{"at_s": 1, "job": "a"}]})",
       "timeline[0] sets nothing"},
      {R"({"jobs": [{"name": "a", "model": "cnn"}], "timeline": [{"at_s": 1, "job": "a",
          "perfControl": -5}]})",
       "timeline[0].perfControl"},
      {R"({"jobs": [{"name": "a", "model": "cnn"}], "timeline": [{"at_s": 1, "job": "a",
          "maxDeviceMem": 0}]})",
       "timeline[0].maxDeviceMem"},
  };
  for (const BadCase& c : cases) {
    absl::StatusOr<Scenario> s = ParseScenarioJson(c.content, "bad.json");
    ASSERT_FALSE(s.ok()) << c.content;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << c.content;
    EXPECT_THAT(s.status().message(), HasSubstr("scenario 'bad.json'")) << c.content;
    EXPECT_THAT(s.status().message(), HasSubstr(c.expected)) << c.content;
  }
}

TEST(ScenarioTest, CsvJobListBecomesJobs) {
  absl::StatusOr<Scenario> s = ParseScenarioCsv(
      "submit_time,model_name,batch_size,iterations,gpu_requests,priority\n"
      "0,cnn,64,200,1,0\n"
      "# a comment\n"
      "\n"
      "5.5,MLP,128,1000,1,1\n",
      "jobs.csv");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->jobs.size(), 2u);
  EXPECT_EQ(s->jobs[0].model, "cnn");
  EXPECT_EQ(s->jobs[0].steps, 200);
  EXPECT_EQ(s->jobs[0].role, JobRole::kGuarantee);
  EXPECT_EQ(s->jobs[1].model, "mlp");
  EXPECT_EQ(s->jobs[1].start_s, 5.5);
  EXPECT_EQ(s->jobs[1].batch_size, 128);
  EXPECT_EQ(s->jobs[1].role, JobRole::kOpportunistic);
  EXPECT_NE(s->jobs[0].name, s->jobs[1].name);
  EXPECT_TRUE(s->timeline.empty());
}

TEST(ScenarioTest, BadCsvNamesTheLine) {
  const std::vector<BadCase> cases = {
      {"", "the file is empty"},
      {"time,model\n", "the header must be"},
      {"submit_time,model_name,batch_size,iterations,gpu_requests,priority\n0,cnn,64\n",
       "line 2: has 3 fields"},
      {"submit_time,model_name,batch_size,iterations,gpu_requests,priority\n-1,cnn,64,10,1,0\n",
       "line 2: submit_time"},
      {"submit_time,model_name,batch_size,iterations,gpu_requests,priority\n0,rnn,64,10,1,0\n",
       "line 2: model_name"},
      {"submit_time,model_name,batch_size,iterations,gpu_requests,priority\n0,cnn,x,10,1,0\n",
       "line 2: batch_size"},
      {"submit_time,model_name,batch_size,iterations,gpu_requests,priority\n0,cnn,64,0,1,0\n",
       "line 2: iterations"},
      {"submit_time,model_name,batch_size,iterations,gpu_requests,priority\n0,cnn,64,10,2,0\n",
       "line 2: gpu_requests must be 1"},
      {"submit_time,model_name,batch_size,iterations,gpu_requests,priority\n0,cnn,64,10,1,-3\n",
       "line 2: priority"},
  };
  for (const BadCase& c : cases) {
    absl::StatusOr<Scenario> s = ParseScenarioCsv(c.content, "jobs.csv");
    ASSERT_FALSE(s.ok()) << c.content;
    EXPECT_THAT(s.status().message(), HasSubstr("scenario 'jobs.csv'")) << c.content;
    EXPECT_THAT(s.status().message(), HasSubstr(c.expected)) << c.content;
  }
}

TEST(ScenarioTest, LoadPicksTheFormatByExtensionAndNamesMissingFiles) {
  const std::string dir = test::MakeTempDir("scenario");
  test::WriteFileAtomically(dir + "/s.json", kGood);
  test::WriteFileAtomically(dir + "/s.csv",
                            "submit_time,model_name,batch_size,iterations,gpu_requests,priority\n"
                            "0,mlp,32,10,1,0\n");
  test::WriteFileAtomically(dir + "/s.yaml", "jobs: []");
  absl::StatusOr<Scenario> json = LoadScenario(dir + "/s.json");
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(json->jobs.size(), 2u);
  absl::StatusOr<Scenario> csv = LoadScenario(dir + "/s.csv");
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_EQ(csv->jobs.size(), 1u);
  absl::StatusOr<Scenario> yaml = LoadScenario(dir + "/s.yaml");
  EXPECT_THAT(yaml.status().message(), HasSubstr("must end in .json or .csv"));
  absl::StatusOr<Scenario> missing = LoadScenario(dir + "/nope.json");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("nope.json"));
}

TEST(ScenarioTest, ByteSizes) {
  EXPECT_EQ(*ParseByteSize("16GiB"), int64_t{16} << 30);
  EXPECT_EQ(*ParseByteSize("512MiB"), int64_t{512} << 20);
  EXPECT_EQ(*ParseByteSize("1.5GB"), int64_t{1500000000});
  EXPECT_EQ(*ParseByteSize("4096"), 4096);
  EXPECT_FALSE(ParseByteSize("lots").ok());
  EXPECT_FALSE(ParseByteSize("-1GiB").ok());
}

TEST(ScenarioTest, BuiltInScenariosLoadAndTheirJobsBuild) {
  const std::string dir = std::string(MINITF_SOURCE_DIR) + "/bench/scenarios";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    SCOPED_TRACE(entry.path().string());
    absl::StatusOr<Scenario> s = LoadScenario(entry.path().string());
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->name, entry.path().stem().string());
    EXPECT_GE(s->jobs.size(), 2u);
    for (const JobSpec& job : s->jobs) {
      absl::StatusOr<JobModel> model = BuildJobModel(job);
      EXPECT_TRUE(model.ok()) << model.status();
    }
  }
  EXPECT_GE(count, 4);
}

}  // namespace
}  // namespace minitf::harness
