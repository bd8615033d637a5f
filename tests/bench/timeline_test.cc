// TimelineDriver: actions are performed in time order by rewriting the
// job's config file with its merged settings, which the job's parser
// accepts; nothing is written early; a failed write names the file.
#include "bench/harness/experiment/timeline.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "session/antman/gpu_config.h"
#include "tests/testlib/test_files.h"

namespace minitf::harness {
namespace {

using ::testing::HasSubstr;

GPUConfig ReadConfig(const std::string& path) {
  absl::StatusOr<GPUConfig> config = ParseGPUConfig(test::ReadFileOrDie(path), path);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : GPUConfig();
}

TimelineAction Action(double at, const std::string& job, std::optional<int64_t> mem,
                      std::optional<int> perf) {
  TimelineAction a;
  a.at_s = at;
  a.job = job;
  a.max_device_mem = mem;
  a.perf_control = perf;
  return a;
}

TEST(TimelineDriverTest, PerformsDueActionsInOrderWithMergedSettings) {
  const std::string dir = test::MakeTempDir("timeline");
  const std::string a_file = dir + "/a.json";
  const std::string b_file = dir + "/b.json";
  TimelineDriver driver({Action(1, "a", int64_t{1} << 30, std::nullopt),
                         Action(2, "b", std::nullopt, 10), Action(3, "a", std::nullopt, 0),
                         Action(5, "a", std::nullopt, 50)},
                        {{"a", a_file}, {"b", b_file}});
  GPUConfig initial;
  initial.max_device_mem["GPU:0"] = int64_t{4} << 30;
  initial.perf_control = 100;
  ASSERT_TRUE(driver.WriteInitial("a", initial).ok());
  ASSERT_TRUE(driver.WriteInitial("b", initial).ok());
  EXPECT_EQ(ReadConfig(a_file), initial);

  absl::StatusOr<std::vector<TimelineAction>> done = driver.Advance(0.5);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->empty());
  EXPECT_EQ(ReadConfig(a_file), initial);
  EXPECT_EQ(driver.NextAt(), 1);

  done = driver.Advance(3.0);
  ASSERT_TRUE(done.ok());
  ASSERT_EQ(done->size(), 3u);
  EXPECT_EQ((*done)[0].at_s, 1);
  EXPECT_EQ((*done)[2].at_s, 3);
  GPUConfig a = ReadConfig(a_file);
  EXPECT_EQ(a.max_device_mem.at("GPU:0"), int64_t{1} << 30);  // from t=1
  EXPECT_EQ(a.perf_control, 0);                               // from t=3
  GPUConfig b = ReadConfig(b_file);
  EXPECT_EQ(b.max_device_mem.at("GPU:0"), int64_t{4} << 30);  // untouched
  EXPECT_EQ(b.perf_control, 10);
  EXPECT_FALSE(driver.done());

  done = driver.Advance(100);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->size(), 1u);
  EXPECT_TRUE(driver.done());
  EXPECT_EQ(ReadConfig(a_file).perf_control, 50);
  EXPECT_EQ(driver.config("a").perf_control, 50);
  // Nothing is performed twice.
  done = driver.Advance(200);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->empty());
}

TEST(TimelineDriverTest, ApplyWritesAtOnceAndLeavesTheTimelineAlone) {
  const std::string dir = test::MakeTempDir("timeline");
  const std::string file = dir + "/a.json";
  TimelineDriver driver({Action(5, "a", std::nullopt, 0)}, {{"a", file}});
  GPUConfig initial;
  initial.max_device_mem["GPU:0"] = int64_t{2} << 30;
  initial.perf_control = 0;
  ASSERT_TRUE(driver.WriteInitial("a", initial).ok());
  ASSERT_TRUE(driver.Apply(Action(0, "a", std::nullopt, 100)).ok());
  const GPUConfig a = ReadConfig(file);
  EXPECT_EQ(a.perf_control, 100);
  EXPECT_EQ(a.max_device_mem.at("GPU:0"), int64_t{2} << 30);  // merged, not replaced
  EXPECT_FALSE(driver.done());
  EXPECT_EQ(driver.NextAt(), 5);
  EXPECT_FALSE(driver.Apply(Action(0, "nobody", std::nullopt, 100)).ok());
}

TEST(TimelineDriverTest, FailedWriteNamesTheFile) {
  const std::string dir = test::MakeTempDir("timeline");
  const std::string missing = dir + "/no_such_dir/a.json";
  TimelineDriver driver({Action(0, "a", std::nullopt, 10)}, {{"a", missing}});
  absl::StatusOr<std::vector<TimelineAction>> done = driver.Advance(1);
  ASSERT_FALSE(done.ok());
  EXPECT_THAT(done.status().message(), HasSubstr(missing));
  EXPECT_FALSE(driver.done());
}

TEST(TimelineDriverTest, AnActionForAJobWithoutAFileIsAnError) {
  TimelineDriver driver({Action(0, "ghost", std::nullopt, 10)}, {});
  absl::StatusOr<std::vector<TimelineAction>> done = driver.Advance(1);
  ASSERT_FALSE(done.ok());
  EXPECT_THAT(done.status().message(), HasSubstr("ghost"));
}

}  // namespace
}  // namespace minitf::harness
