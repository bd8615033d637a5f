// Scenario files of the co-location harness: good files parse to what they
// say; bad ones are InvalidArgument naming the file and the field.
#include "bench/harness/scenario/scenario.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "bench/harness/jobs/job_model.h"
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
     "role": "guarantee", "memory_limit": "4GiB", "input_ms": 12.5},
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
  EXPECT_EQ(g.input_ms, 12.5);
  const JobSpec& o = s->jobs[1];
  EXPECT_EQ(o.steps, 500);
  EXPECT_EQ(o.role, JobRole::kOpportunistic);
  EXPECT_EQ(o.memory_limit, int64_t{1} << 30);
  EXPECT_EQ(o.perf_control, 50);
  EXPECT_EQ(o.start_s, 2.5);
  EXPECT_EQ(o.pacing, "antman");
  EXPECT_EQ(JobStreamPriority(o), se::StreamPriority::kDefault);  // as given
  EXPECT_EQ(o.input_ms, 0);  // no input wait unless given
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
      {R"({"jobs": [{"name": "a b", "model": "cnn"}]})", "jobs[0].name must be"},
      {R"({"jobs": [{"name": "a", "model": "rnn"}]})", "jobs[0].model must be mlp, cnn, transformer or graphdef"},
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
      {R"({"jobs": [{"name": "a", "model": "cnn", "input_ms": -1}]})",
       "jobs[0].input_ms must be a number of milliseconds in 0..60000, got -1"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "input_ms": 60000.5}]})",
       "jobs[0].input_ms must be a number of milliseconds in 0..60000, got 60000.5"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "input_ms": null}]})",
       "jobs[0].input_ms must be a number of milliseconds in 0..60000, got null"},
      {R"({"jobs": [{"name": "a", "model": "cnn", "input_ms": "20"}]})",
       "jobs[0].input_ms must be a number of milliseconds in 0..60000, got \"20\""},
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

TEST(ScenarioTest, EveryPacingPolicyIsAccepted) {
  for (const char* pacing : {"precise", "antman", "sms"}) {
    absl::StatusOr<Scenario> s = ParseScenarioJson(
        absl::StrCat(R"({"jobs": [{"name": "a", "model": "cnn", "pacing": ")", pacing, R"("}]})"),
        "pacing.json");
    ASSERT_TRUE(s.ok()) << pacing << ": " << s.status();
    EXPECT_EQ(s->jobs[0].pacing, pacing);
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

// A scenario whose jobs are `jobs` (a JSON array's body) and whose timeline
// is `timeline`, lasting `duration_s`.
std::string WithJobs(absl::string_view jobs, absl::string_view timeline = "",
                     absl::string_view duration_s = "60") {
  return absl::StrCat(R"({"duration_s": )", duration_s, R"(, "jobs": [)", jobs,
                      R"(], "timeline": [)", timeline, "]}");
}

// Every byte printable ASCII: what a terminal shows as it is.
bool IsPrintable(absl::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

TEST(ScenarioTest, JobNamesMustBeDistinctSafeFileNames) {
  // A NUL ends the name as a file name: "a\0b" and "a\0c" would share
  // jobs/a.config.json. JSON strings may hold one ("\u0000").
  const std::vector<BadCase> cases = {
      {R"({"name": "a\u0000b", "model": "mlp"})", R"(jobs[0].name must be)"},
      {R"({"name": "../x", "model": "mlp"})", R"(got "../x")"},
      {R"({"name": ".hidden", "model": "mlp"})", R"(got ".hidden")"},
      {R"({"name": "-rf", "model": "mlp"})", R"(got "-rf")"},
      {R"({"name": "a:b", "model": "mlp"})", R"(got "a:b")"},
      {R"({"name": "caf\u00e9", "model": "mlp"})", R"(got "caf\xc3\xa9")"},
      {R"({"name": "", "model": "mlp"})", R"(got "")"},
  };
  for (const BadCase& c : cases) {
    absl::StatusOr<Scenario> s = ParseScenarioJson(WithJobs(c.content), "names.json");
    ASSERT_FALSE(s.ok()) << c.content;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << c.content;
    EXPECT_THAT(s.status().message(), HasSubstr("jobs[0].name must be")) << c.content;
    EXPECT_THAT(s.status().message(), HasSubstr(c.expected)) << c.content;
    EXPECT_TRUE(IsPrintable(s.status().message())) << s.status().message();
  }
  absl::StatusOr<Scenario> nul = ParseScenarioJson(
      WithJobs(R"({"name": "ok", "model": "mlp"}, {"name": "a\u0000b", "model": "mlp"})"),
      "names.json");
  EXPECT_THAT(nul.status().message(), HasSubstr(R"(jobs[1].name must be)"));
  EXPECT_THAT(nul.status().message(), HasSubstr(R"(got "a\x00b")"));
  // A name too long for a file name with its suffixes.
  absl::StatusOr<Scenario> longer = ParseScenarioJson(
      WithJobs(absl::StrCat(R"({"name": ")", std::string(65, 'x'), R"(", "model": "mlp"})")),
      "names.json");
  EXPECT_THAT(longer.status().message(), HasSubstr("jobs[0].name must be 1 to 64"));
  // Names that differ only in case name one file on a case-insensitive
  // file system.
  absl::StatusOr<Scenario> cased = ParseScenarioJson(
      WithJobs(R"({"name": "Job", "model": "mlp"}, {"name": "job", "model": "mlp"})"),
      "names.json");
  EXPECT_THAT(cased.status().message(), HasSubstr(R"(jobs[1].name "job" differs from jobs[0])"));
  // The scenario's name is the default output directory's.
  absl::StatusOr<Scenario> scenario_name = ParseScenarioJson(
      R"({"name": "../../etc", "jobs": [{"name": "a", "model": "mlp"}]})", "names.json");
  EXPECT_THAT(scenario_name.status().message(), HasSubstr(R"(name must be 1 to 64)"));
  absl::StatusOr<Scenario> good = ParseScenarioJson(
      WithJobs(R"({"name": "Job-1.v2_x", "model": "mlp"}, {"name": "_7", "model": "mlp"})"),
      "names.json");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->jobs[0].name, "Job-1.v2_x");
}

TEST(ScenarioTest, ScenarioNameDefaultsToTheFileStem) {
  absl::StatusOr<Scenario> s =
      ParseScenarioJson(WithJobs(R"({"name": "a", "model": "mlp"})"), "dir/my_run.json");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->name, "my_run");
}

TEST(ScenarioTest, UnknownKeysAreErrorsNamingTheClosestKnownOne) {
  const std::vector<BadCase> cases = {
      {R"({"jobs": [{"name": "a", "model": "mlp"}], "timelin": []})",
       R"(unknown key "timelin" (did you mean "timeline"?))"},
      {R"({"jobs": [{"name": "a", "model": "mlp"}, {"name": "b", "model": "mlp",
          "perfControl": 10}]})",
       R"(jobs[1]: unknown key "perfControl" (did you mean "perf_control"?))"},
      {R"({"jobs": [{"name": "a", "model": "mlp", "batch": 10}]})",
       R"(jobs[0]: unknown key "batch" (did you mean "batch_size"?))"},
      {R"({"device": {"simgpus": ""}, "jobs": [{"name": "a", "model": "mlp"}]})",
       R"(device: unknown key "simgpus" (did you mean "simgpu"?))"},
      {R"({"jobs": [{"name": "a", "model": "mlp"}],
          "timeline": [{"at_s": 1, "job": "a", "perf_control": 5}]})",
       R"(timeline[0]: unknown key "perf_control" (did you mean "perfControl"?))"},
      {R"({"jobs": [{"name": "a", "model": "mlp"}],
          "timeline": [{"at_s": 1, "job": "a", "maxdevicemem": "1GiB"}]})",
       R"(did you mean "maxDeviceMem"?)"},
      // Nothing close: the known keys are listed.
      {R"({"jobs": [{"name": "a", "model": "mlp", "zzz": 1}]})",
       R"(jobs[0]: unknown key "zzz" (known keys: name, model, model_params,)"},
      {R"({"jobs": [{"name": "a", "model": "mlp", "x\u0000": 1}]})",
       R"(jobs[0]: unknown key "x\x00")"},
  };
  for (const BadCase& c : cases) {
    absl::StatusOr<Scenario> s = ParseScenarioJson(c.content, "keys.json");
    ASSERT_FALSE(s.ok()) << c.content;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << c.content;
    EXPECT_THAT(s.status().message(), HasSubstr("scenario 'keys.json': ")) << c.content;
    EXPECT_THAT(s.status().message(), HasSubstr(c.expected)) << c.content;
  }
}

TEST(ScenarioTest, AKeyGivenTwiceIsAnError) {
  // JSON parsers keep one of the two values; which one the writer meant is
  // anyone's guess.
  absl::StatusOr<Scenario> s = ParseScenarioJson(
      WithJobs(R"({"name": "a", "model": "mlp"},
                  {"name": "b", "model": "mlp", "perf_control": 10, "perf_control": 100})"),
      "twice.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(),
              HasSubstr("scenario 'twice.json': jobs[1].perf_control is given twice"));
  absl::StatusOr<Scenario> top = ParseScenarioJson(
      R"({"duration_s": 10, "duration_s": 20, "jobs": [{"name": "a", "model": "mlp"}]})",
      "twice.json");
  EXPECT_THAT(top.status().message(),
              HasSubstr("scenario 'twice.json': duration_s is given twice"));
  absl::StatusOr<Scenario> nested = ParseScenarioJson(
      WithJobs(R"({"name": "a", "model": "cnn", "model_params": {"channels": 8, "channels": 9}})"),
      "twice.json");
  EXPECT_THAT(nested.status().message(), HasSubstr("jobs[0].model_params.channels is given twice"));
}

TEST(ScenarioTest, InvalidJsonSaysWhere) {
  absl::StatusOr<Scenario> s = ParseScenarioJson("{\"jobs\": [\n  {\"name\": }]}", "where.json");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("scenario 'where.json': not valid JSON"));
  EXPECT_THAT(s.status().message(), HasSubstr("line 2, column 12"));
  // Bytes that are not UTF-8 are shown escaped.
  absl::StatusOr<Scenario> bytes = ParseScenarioJson("{\"name\": \"\xff\"}", "where.json");
  EXPECT_THAT(bytes.status().message(), HasSubstr("not valid JSON"));
  EXPECT_TRUE(IsPrintable(bytes.status().message())) << bytes.status().message();
}

TEST(ScenarioTest, TimesAreFiniteAndWithinTheScenario) {
  struct Case {
    std::string content;
    const char* expected;
  };
  const std::vector<Case> cases = {
      // An action at or after the end would never happen.
      {WithJobs(R"({"name": "a", "model": "mlp"})", R"({"at_s": 60, "job": "a",
                "perfControl": 5})"),
       "timeline[0].at_s 60 is at or after the scenario's end (duration_s 60)"},
      // A job starting at or after the end would never run.
      {WithJobs(R"({"name": "a", "model": "mlp"}, {"name": "b", "model": "mlp",
                "start_s": 75})"),
       "jobs[1].start_s 75 is at or after the scenario's end (duration_s 60)"},
      {WithJobs(R"({"name": "a", "model": "mlp"})", "", "0"), "duration_s must be"},
      {WithJobs(R"({"name": "a", "model": "mlp"})", "", "1e308"),
       "duration_s must be a number of seconds in 0.001..10000000, got 1e+308"},
      {WithJobs(R"({"name": "a", "model": "mlp", "duration_s": 1e300})"),
       "jobs[0].duration_s must be a number of seconds in 0..10000000"},
      {WithJobs(R"({"name": "a", "model": "mlp", "steps": 9223372036854775808})"),
       "jobs[0].steps must be an integer in 0..1099511627776, got 9223372036854775808"},
      {WithJobs(R"({"name": "a", "model": "mlp", "memory_limit": 18446744073709551615})"),
       "jobs[0].memory_limit must be a positive size"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Scenario> s = ParseScenarioJson(c.content, "times.json");
    ASSERT_FALSE(s.ok()) << c.content;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << c.content;
    EXPECT_THAT(s.status().message(), HasSubstr("scenario 'times.json': ")) << c.content;
    EXPECT_THAT(s.status().message(), HasSubstr(c.expected)) << c.content;
  }
}

TEST(ScenarioTest, JobsCutByTheEndAndIdleActionsAreWarnings) {
  absl::StatusOr<Scenario> s = ParseScenarioJson(
      WithJobs(R"({"name": "a", "model": "mlp", "start_s": 50, "duration_s": 20},
                  {"name": "b", "model": "mlp", "duration_s": 10})",
               R"({"at_s": 30, "job": "b", "perfControl": 5})"),
      "warn.json");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->warnings.size(), 2u);
  EXPECT_THAT(s->warnings[0],
              HasSubstr("scenario 'warn.json': jobs[0] (\"a\") runs from 50 s for 20 s, past "
                        "the scenario's end at 60 s: it is cut at 60 s"));
  EXPECT_THAT(s->warnings[1],
              HasSubstr("scenario 'warn.json': timeline[0] at 30 s acts on job \"b\", which "
                        "stops at 10 s: it has no effect"));
  absl::StatusOr<Scenario> good = ParseScenarioJson(kGood, "good.json");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(good->warnings.empty());
}

TEST(ScenarioTest, ErrorsShowLongAndBinaryValuesShortAndEscaped) {
  const std::string huge(1 << 20, 'm');
  absl::StatusOr<Scenario> s = ParseScenarioJson(
      WithJobs(absl::StrCat(R"({"name": "a", "model": ")", huge, R"(\u0001"})")), "long.json");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("jobs[0].model must be"));
  EXPECT_LT(s.status().message().size(), 400u) << s.status().message();
  EXPECT_THAT(s.status().message(), HasSubstr("(1048577 bytes)"));
  absl::StatusOr<Scenario> nested = ParseScenarioJson(
      WithJobs(absl::StrCat(R"({"name": "a", "model": "mlp", "steps": )", std::string(20, '['),
                            std::string(20, ']'), "}")),
      "long.json");
  EXPECT_THAT(nested.status().message(), HasSubstr("jobs[0].steps must be an integer in "
                                                   "0..1099511627776, got an array"));
  // Nesting no scenario needs is refused before it is built into a tree.
  absl::StatusOr<Scenario> deep = ParseScenarioJson(
      WithJobs(absl::StrCat(R"({"name": "a", "model": "mlp", "steps": )",
                            std::string(1 << 20, '['), std::string(1 << 20, ']'), "}")),
      "long.json");
  EXPECT_THAT(deep.status().message(),
              HasSubstr("scenario 'long.json': jobs[0].steps[0][0]"));
  EXPECT_THAT(deep.status().message(), HasSubstr("nests values more than 32 deep"));
  absl::StatusOr<Scenario> role = ParseScenarioJson(
      WithJobs(R"({"name": "a", "model": "mlp", "role": "g\u0000\n"})"), "long.json");
  EXPECT_THAT(role.status().message(), HasSubstr(R"(got "g\x00\n")"));
  EXPECT_TRUE(IsPrintable(role.status().message())) << role.status().message();
}

TEST(ScenarioTest, ModelParamsKeysAreReadWholeAndShownEscaped) {
  // A key is not cut at a NUL: its value is read (and the model builder
  // refuses the name).
  absl::StatusOr<Scenario> nul = ParseScenarioJson(
      WithJobs(R"({"name": "a", "model": "cnn", "model_params": {"channels\u0000x": 5}})"),
      "params.json");
  ASSERT_TRUE(nul.ok()) << nul.status();
  ASSERT_EQ(nul->jobs[0].model_params.size(), 1u);
  EXPECT_EQ(nul->jobs[0].model_params.at(std::string("channels\0x", 10)), 5);
  EXPECT_FALSE(BuildJobModel(nul->jobs[0]).ok());
  absl::StatusOr<Scenario> bad = ParseScenarioJson(
      WithJobs(absl::StrCat(R"({"name": "a", "model": "cnn", "model_params": {")",
                            std::string(5000, 'k'), R"(\u0000": 0}})")),
      "params.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("jobs[0].model_params.kkkk"));
  EXPECT_THAT(bad.status().message(), HasSubstr("must be an integer in 1..1048576, got 0"));
  EXPECT_LT(bad.status().message().size(), 400u);
  absl::StatusOr<Scenario> binary = ParseScenarioJson(
      WithJobs(R"({"name": "a", "model": "cnn", "model_params": {"c\u0000": 0}})"),
      "params.json");
  EXPECT_THAT(binary.status().message(), HasSubstr(R"(jobs[0].model_params.c\x00 must be)"));
}

TEST(ScenarioTest, CsvJobListLastsUntilAMinuteAfterItsLastSubmission) {
  const std::string header = "submit_time,model_name,batch_size,iterations,gpu_requests,priority\n";
  absl::StatusOr<Scenario> s =
      ParseScenarioCsv(header + "0,mlp,32,10,1,0\n90,mlp,32,10,1,1\n", "late.csv");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->duration_s, 150);
  EXPECT_EQ(s->name, "late");
  absl::StatusOr<Scenario> early = ParseScenarioCsv(header + "0,mlp,32,10,1,0\n", "early.csv");
  ASSERT_TRUE(early.ok()) << early.status();
  EXPECT_EQ(early->duration_s, 60);
  for (const char* submit : {"1e308", "inf", "nan", "1e7"}) {
    absl::StatusOr<Scenario> bad =
        ParseScenarioCsv(absl::StrCat(header, submit, ",mlp,32,10,1,0\n"), "late.csv");
    ASSERT_FALSE(bad.ok()) << submit;
    EXPECT_THAT(bad.status().message(),
                HasSubstr("line 2: submit_time must be a number of seconds in 0..9999940"))
        << submit;
  }
}

TEST(ScenarioTest, LoadRejectsWhatIsNotARegularFileOfBoundedSize) {
  const std::string dir = test::MakeTempDir("scenario_files");
  absl::StatusOr<Scenario> directory = LoadScenario(dir);
  EXPECT_EQ(directory.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(directory.status().message(), HasSubstr("is a directory, not a scenario file"));
  std::filesystem::create_directory(dir + "/d.json");
  EXPECT_THAT(LoadScenario(dir + "/d.json").status().message(), HasSubstr("is a directory"));
  // A FIFO with no writer: reading would wait forever.
  ASSERT_EQ(mkfifo((dir + "/fifo.json").c_str(), 0600), 0);
  absl::StatusOr<Scenario> fifo = LoadScenario(dir + "/fifo.json");
  EXPECT_EQ(fifo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(fifo.status().message(), HasSubstr("is not a regular file"));
  // Endless.
  absl::StatusOr<Scenario> zero = LoadScenario("/dev/zero");
  EXPECT_THAT(zero.status().message(), HasSubstr("'/dev/zero' is not a regular file"));
  // Too large (sparse: no disk used).
  const std::string big = dir + "/big.json";
  test::WriteFileAtomically(big, "{}");
  std::filesystem::resize_file(big, (uintmax_t{16} << 20) + 1);
  absl::StatusOr<Scenario> large = LoadScenario(big);
  EXPECT_EQ(large.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(large.status().message(),
              HasSubstr("is 16777217 bytes; a scenario file is at most 16 MiB"));
}

TEST(ScenarioTest, SecondsAreFinitePositiveAndBounded) {
  EXPECT_EQ(*ParseSeconds("--seconds", "30"), 30);
  EXPECT_EQ(*ParseSeconds("--seconds", "0.5"), 0.5);
  EXPECT_EQ(*ParseSeconds("--seconds", "1e7"), 1e7);
  const std::vector<BadCase> cases = {
      {"inf", "--seconds wants a finite number of seconds, got 'inf'"},
      {"1e309", "--seconds wants a finite number of seconds, got '1e309'"},
      {"nan", "--seconds wants a finite number of seconds, got 'nan'"},
      {"-1", "--seconds wants a number of seconds in 0.001..10000000, got '-1'"},
      {"0", "--seconds wants a number of seconds in 0.001..10000000, got '0'"},
      {"1e8", "--seconds wants a number of seconds in 0.001..10000000, got '1e8'"},
      {"soon", "--seconds wants a number of seconds, got 'soon'"},
  };
  for (const BadCase& c : cases) {
    absl::StatusOr<double> v = ParseSeconds("--seconds", c.content);
    ASSERT_FALSE(v.ok()) << c.content;
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(v.status().message(), c.expected);
  }
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
