// The local coordinator (session/antman/coordinator.h) on hand-written job
// files and a fake clock: the memory each job is given, the solo
// measurement, both policies' steering, and the faults it must survive (a
// job gone quiet, a dead process, a corrupt status file, its own restart).
#include "session/antman/coordinator.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testlib/test_files.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kMiB = int64_t{1} << 20;

class CoordinatorTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::MakeTempDir("coordinator"); }

  CoordinatorOptions Options(const std::string& policy = "antman") {
    CoordinatorOptions o;
    o.dir = dir_;
    o.policy = policy;
    o.gpu_memory_bytes = 16 * kGiB;
    o.clock = [this] { return now_; };
    return o;
  }
  // Job `job`'s files: side by side in the directory, or (own_dirs_) in
  // a directory of its own.
  JobFiles Files(const std::string& job) {
    return own_dirs_ ? OwnDirectoryJobFiles(dir_, job) : SideBySideJobFiles(dir_, job);
  }
  void Register(const std::string& job, const std::string& role, int64_t pid = 0,
                std::string pid_namespace = PidNamespace()) {
    if (own_dirs_) mkdir(Files(job).home.c_str(), 0755);
    test::WriteFileAtomically(Files(job).registration,
                              absl::StrCat(R"({"role": ")", role, R"(", "pid": )", pid,
                                           R"(, "pidNamespace": ")", pid_namespace, R"("})"));
  }
  // The job's statistics now: `steps` so far, its device peak.
  void Status(const std::string& job, int64_t steps, int64_t peak = kGiB) {
    test::WriteFileAtomically(
        Files(job).status,
        absl::StrCat(R"({"timestampUs": )", absl::ToUnixMicros(now_), R"(, "stepCount": )",
                     steps, R"(, "gpuUsageInfo": {"50:00.0": {"deviceMemUsedMax": )", peak,
                     "}}}"));
  }
  nlohmann::json Config(const std::string& job) {
    std::ifstream in(Files(job).config);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
  }
  int Perf(const std::string& job) { return Config(job)["perfControl"].get<int>(); }
  int64_t Memory(const std::string& job) {
    return Config(job)["gpuConfigInfo"]["GPU:0"]["maxDeviceMem"].get<int64_t>();
  }
  std::vector<Decision> Tick(Coordinator& c) {
    absl::StatusOr<std::vector<Decision>> made = c.Tick();
    EXPECT_TRUE(made.ok()) << made.status();
    return made.ok() ? *made : std::vector<Decision>();
  }
  // `seconds` of the guarantee job "g" stepping at `rate` (and the
  // opportunistic job "o" at 5 steps/s), a status each 0.5 s and a round of
  // the coordinator after each.
  void Run(Coordinator& c, double seconds, double rate, std::vector<Decision>* log = nullptr) {
    for (int i = 0; i < static_cast<int>(seconds * 2); ++i) {
      now_ += absl::Milliseconds(500);
      g_steps_ += rate / 2;
      o_steps_ += 2.5;
      Status("g", static_cast<int64_t>(g_steps_), 2 * kGiB);
      Status("o", static_cast<int64_t>(o_steps_), kGiB);
      for (Decision& d : Tick(c)) {
        if (log != nullptr) log->push_back(d);
      }
    }
  }

  std::string dir_;
  bool own_dirs_ = false;
  absl::Time now_ = absl::FromUnixSeconds(1795417800);
  double g_steps_ = 0;
  double o_steps_ = 0;
};

TEST_F(CoordinatorTest, GuaranteeKeepsItsPeakAndMarginOpportunisticGetsTheRest) {
  Register("g", "guarantee");
  Register("o", "opportunistic");
  Status("g", 1, 2 * kGiB);
  Status("o", 1, kGiB);
  Coordinator c(Options());
  Tick(c);
  // 2 GiB * 1.1, rounded up to 64 MiB: 2.25 GiB kept for the guarantee job.
  const int64_t kept = 2 * kGiB + 256 * kMiB;
  EXPECT_EQ(Memory("o"), 16 * kGiB - kept);
  // The guarantee job may grow into all but the opportunistic job's floor.
  EXPECT_EQ(Memory("g"), 16 * kGiB - 256 * kMiB);
  EXPECT_EQ(Perf("g"), 100);
}

// A policy of the caller's decides the configs; the coordinator hands it
// every live job's figures and writes what it returns.
TEST_F(CoordinatorTest, ACustomPolicySeesEveryJobAndItsConfigsAreWritten) {
  Register("g", "guarantee");
  Register("o", "opportunistic");
  CoordinatorOptions options = Options();
  std::vector<std::vector<CoordinatedJob>> seen;
  options.custom_policy = [&seen](double, const std::vector<CoordinatedJob>& jobs)
      -> absl::StatusOr<std::map<std::string, CoordinatedConfig>> {
    seen.push_back(jobs);
    std::map<std::string, CoordinatedConfig> configs;
    for (const CoordinatedJob& job : jobs) {
      configs[job.name] = job.role == "guarantee" ? CoordinatedConfig{12 * kGiB, 100}
                                                  : CoordinatedConfig{4 * kGiB, 30};
    }
    return configs;
  };
  Coordinator c(options);
  Run(c, 4, 10);
  EXPECT_EQ(Memory("g"), 12 * kGiB);
  EXPECT_EQ(Perf("o"), 30);
  EXPECT_EQ(Memory("o"), 4 * kGiB);
  ASSERT_FALSE(seen.empty());
  const std::vector<CoordinatedJob>& last = seen.back();
  ASSERT_EQ(last.size(), 2u);
  EXPECT_EQ(last[0].name, "g");
  EXPECT_EQ(last[0].role, "guarantee");
  EXPECT_EQ(last[0].peak_bytes, 2 * kGiB);
  EXPECT_EQ(last[0].steps, 40);
  EXPECT_NEAR(last[0].steps_per_s, 10, 0.5);
  EXPECT_EQ(last[1].perf_control, 30);
}

TEST_F(CoordinatorTest, ACustomPolicysBadConfigOrErrorIsTheRoundsError) {
  Register("g", "guarantee");
  Status("g", 1);
  CoordinatorOptions options = Options();
  int round = 0;
  options.custom_policy = [&round](double, const std::vector<CoordinatedJob>&)
      -> absl::StatusOr<std::map<std::string, CoordinatedConfig>> {
    ++round;
    if (round == 1) return std::map<std::string, CoordinatedConfig>{{"g", {kGiB, 101}}};
    if (round == 2) return std::map<std::string, CoordinatedConfig>{{"nobody", {kGiB, 50}}};
    if (round == 3) return absl::InternalError("the policy broke");
    return std::map<std::string, CoordinatedConfig>{};
  };
  Coordinator c(options);
  absl::StatusOr<std::vector<Decision>> made = c.Tick();
  EXPECT_TRUE(absl::IsInvalidArgument(made.status())) << made.status();
  EXPECT_THAT(made.status().message(), HasSubstr("perfControl 101"));
  made = c.Tick();
  EXPECT_THAT(made.status().message(), HasSubstr("'nobody', which is no live job"));
  made = c.Tick();
  EXPECT_EQ(made.status().message(), "the policy broke");
  // A round that configures nobody writes nothing.
  made = c.Tick();
  ASSERT_TRUE(made.ok());
  EXPECT_FALSE(std::filesystem::exists(Files("g").config));
}

TEST_F(CoordinatorTest, AntmanCalibratesThenStepsTheOpportunisticShare) {
  Register("g", "guarantee");
  Register("o", "opportunistic");
  Coordinator c(Options("antman"));
  std::vector<Decision> log;
  Run(c, 1, 10, &log);
  // The guarantee job is measured alone first.
  EXPECT_EQ(Perf("o"), 0);
  Run(c, 6.5, 10, &log);
  EXPECT_NEAR(c.SoloRate("g"), 10, 0.5);
  EXPECT_EQ(Perf("o"), 100);
  // 0.8 of solo: down 10 per settled window (3 s).
  Run(c, 3.5, 8, &log);
  EXPECT_EQ(Perf("o"), 90);
  Run(c, 3, 8, &log);
  EXPECT_EQ(Perf("o"), 80);
  // Back at solo: once a window of it is seen (the first judgement may
  // still see the slow steps), up by 10 per window.
  Run(c, 10, 10, &log);
  EXPECT_GE(Perf("o"), 80);
  bool calibrated = false, lowered = false, raised = false;
  for (const Decision& d : log) {
    if (d.job != "o" || d.setting != "perfControl" || d.old_value.empty()) continue;
    calibrated = calibrated || absl::StrContains(d.reason, "calibrated: g alone at");
    lowered = lowered || (d.new_value == "90" && absl::StrContains(d.reason, "below 0.97"));
    raised = raised || (std::stoi(d.new_value) == std::stoi(d.old_value) + 10 &&
                        absl::StrContains(d.reason, "at or above 0.97"));
  }
  EXPECT_TRUE(calibrated);
  EXPECT_TRUE(lowered);
  EXPECT_TRUE(raised);
}

TEST_F(CoordinatorTest, TgsHalvesOnAViolationAndGrowsByHalfOtherwise) {
  Register("g", "guarantee");
  Register("o", "opportunistic");
  Coordinator c(Options("tgs"));
  Run(c, 7.5, 10);
  ASSERT_EQ(Perf("o"), 100);
  Run(c, 3.5, 8);
  EXPECT_EQ(Perf("o"), 50);
  Run(c, 3, 8);
  EXPECT_EQ(Perf("o"), 25);
  std::vector<Decision> log;
  Run(c, 10, 10, &log);
  // Each increase is by half (rounded); the last decision is one.
  int increases = 0;
  for (const Decision& d : log) {
    if (d.job != "o" || d.setting != "perfControl" || d.old_value.empty()) continue;
    const int before = std::stoi(d.old_value), after = std::stoi(d.new_value);
    if (after > before) {
      ++increases;
      EXPECT_EQ(after, std::max(before + 1, static_cast<int>(std::lround(before * 1.5))));
    }
  }
  EXPECT_GE(increases, 2);
  EXPECT_GT(Perf("o"), 25);
}

TEST_F(CoordinatorTest, AQuietJobIsLostAndItsMemoryGoesToTheOthers) {
  Register("g", "guarantee");
  Register("o", "opportunistic");
  Coordinator c(Options());
  Run(c, 1, 10);
  const int64_t before = Memory("o");
  // "g" stops writing its status; "o" goes on.
  std::vector<Decision> log;
  for (int i = 0; i < 25; ++i) {
    now_ += absl::Milliseconds(500);
    o_steps_ += 2.5;
    Status("o", static_cast<int64_t>(o_steps_));
    for (Decision& d : Tick(c)) log.push_back(d);
  }
  bool lost = false;
  for (const Decision& d : log) lost = lost || (d.job == "g" && d.setting == "lost");
  EXPECT_TRUE(lost);
  EXPECT_GT(Memory("o"), before);
  EXPECT_EQ(Memory("o"), 16 * kGiB);  // alone now
  EXPECT_EQ(Perf("o"), 100);          // nothing left to protect
}

// The coordinator suspends the opportunistic job to measure the other
// alone: a suspended job takes no step, writes no status, and is not lost;
// once resumed, it has the full time again to step.
TEST_F(CoordinatorTest, ASuspendedJobIsNotLostForTakingNoStep) {
  Register("g", "guarantee");
  Register("o", "opportunistic");
  Status("o", 1);
  Coordinator c(Options());
  std::vector<Decision> log;
  for (int i = 0; i < 30; ++i) {  // 6 s suspended, 9 s resumed
    now_ += absl::Milliseconds(500);
    g_steps_ += 5;
    Status("g", static_cast<int64_t>(g_steps_));
    for (Decision& d : Tick(c)) log.push_back(d);
    if (i == 0) {
      ASSERT_EQ(Perf("o"), 0);  // calibrating
    }
  }
  EXPECT_EQ(Perf("o"), 100);
  for (const Decision& d : log) EXPECT_NE(d.setting, "lost") << d.job << ": " << d.reason;
}

// A job's heartbeat (its registration rewritten every second) that stops
// loses it its share, even with a status file that still looks fresh.
TEST_F(CoordinatorTest, AStoppedHeartbeatIsLost) {
  test::WriteFileAtomically(dir_ + "/g.job.json",
                            absl::StrCat(R"({"role": "guarantee", "heartbeatUs": )",
                                         absl::ToUnixMicros(now_), "}"));
  Register("o", "opportunistic");
  Coordinator c(Options());
  bool lost = false;
  for (int i = 0; i < 25; ++i) {
    now_ += absl::Milliseconds(500);
    g_steps_ += 5;
    Status("g", static_cast<int64_t>(g_steps_));
    for (const Decision& d : Tick(c)) {
      if (d.job == "g" && d.setting == "lost") {
        lost = true;
        EXPECT_THAT(d.reason, HasSubstr("its heartbeat stopped"));
      }
    }
  }
  EXPECT_TRUE(lost);
}

TEST_F(CoordinatorTest, ADeadProcessIsLost) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  Register("g", "guarantee", child);
  Register("o", "opportunistic");
  Status("g", 1);
  Status("o", 1);
  Coordinator c(Options());
  bool lost = false;
  for (const Decision& d : Tick(c)) {
    if (d.job == "g" && d.setting == "lost") {
      lost = true;
      EXPECT_THAT(d.reason, HasSubstr(absl::StrCat("process ", child, " is gone")));
    }
  }
  EXPECT_TRUE(lost);
}

// A process id from another container's PID namespace says nothing here:
// the job is judged by its statistics, which go on changing.
TEST_F(CoordinatorTest, AProcessIdOfAnotherPidNamespaceIsNotChecked) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  Register("g", "guarantee", child, "pid:[1]");
  Register("o", "opportunistic");
  Status("g", 1);
  Status("o", 1);
  Coordinator c(Options());
  for (const Decision& d : Tick(c)) EXPECT_NE(d.setting, "lost") << d.job << ": " << d.reason;
  EXPECT_THAT(PidNamespace(), ::testing::StartsWith("pid:["));
}

TEST_F(CoordinatorTest, ACorruptStatusIsIgnoredOnceAndTheLastGoodOneCounts) {
  Register("g", "guarantee");
  Register("o", "opportunistic");
  Status("g", 1, 4 * kGiB);
  Status("o", 1);
  Coordinator c(Options());
  Tick(c);
  const int64_t opportunistic = Memory("o");
  test::WriteFileAtomically(dir_ + "/g.status.json", R"({"timestampUs": 17954178)");
  int ignored = 0;
  for (int i = 0; i < 3; ++i) {
    now_ += absl::Milliseconds(500);
    for (const Decision& d : Tick(c)) {
      if (d.job == "g" && d.setting == "ignored") {
        ++ignored;
        EXPECT_THAT(d.reason, HasSubstr("g.status.json: not a JSON object"));
      }
    }
  }
  EXPECT_EQ(ignored, 1);
  EXPECT_EQ(Memory("o"), opportunistic);
}

// A tenant who can write in the shared directory plants links: as another
// job's config (to make the coordinator overwrite a file of its choosing),
// as its own registration and status (to make it read one). Nothing is
// written or read through them; the other job is still configured.
TEST_F(CoordinatorTest, LinksPlantedInTheDirectoryAreNeitherWrittenNorReadThrough) {
  const std::string outside = test::MakeTempDir("coordinator_outside") + "/victim";
  test::WriteFileAtomically(outside, "precious\n");
  Register("g", "guarantee");
  Register("o", "opportunistic");
  ASSERT_EQ(symlink(outside.c_str(), (dir_ + "/o.config.json").c_str()), 0);
  ASSERT_EQ(symlink(outside.c_str(), (dir_ + "/o.config.json.tmp").c_str()), 0);
  ASSERT_EQ(symlink(outside.c_str(), (dir_ + "/x.job.json").c_str()), 0);
  Status("g", 1, 2 * kGiB);
  Status("o", 1, kGiB);
  Coordinator c(Options());
  int refused = 0;
  bool x_ignored = false;
  for (int i = 0; i < 3; ++i) {
    now_ += absl::Milliseconds(500);
    for (const Decision& d : Tick(c)) {
      if (d.job == "o" && d.setting == "ignored") {
        ++refused;
        EXPECT_THAT(d.reason, HasSubstr("o.config.json' is a symbolic link"));
      }
      if (d.job == "x" && d.setting == "ignored") {
        x_ignored = true;
        EXPECT_THAT(d.reason, HasSubstr("symbolic link"));
      }
    }
  }
  EXPECT_EQ(refused, 1);  // Said once, not every round.
  EXPECT_TRUE(x_ignored);
  EXPECT_EQ(test::ReadFileOrDie(outside), "precious\n");
  EXPECT_EQ(Memory("g"), 16 * kGiB - 256 * kMiB);
}

// Jobs in directories of their own (a pod mounts only its own): the same
// steering, the configs written there and nowhere else.
TEST_F(CoordinatorTest, JobsInDirectoriesOfTheirOwnAreSteeredThere) {
  own_dirs_ = true;
  Register("g", "guarantee");
  Register("o", "opportunistic");
  Status("g", 1, 2 * kGiB);
  Status("o", 1, kGiB);
  Coordinator c(Options());
  std::vector<Decision> log = Tick(c);
  bool found = false;
  for (const Decision& d : log) {
    found = found || (d.job == "o" && d.setting == "found" &&
                      absl::StrContains(d.reason, "files in " + dir_ + "/o/"));
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(Memory("o"), 16 * kGiB - (2 * kGiB + 256 * kMiB));
  EXPECT_EQ(Memory("g"), 16 * kGiB - 256 * kMiB);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/o.config.json"));
  Run(c, 10, 10);  // Calibrates, then steers from the statuses in the directories.
  EXPECT_NEAR(c.SoloRate("g"), 10, 0.5);
  // The directory gone, the job is forgotten.
  std::filesystem::remove_all(dir_ + "/o");
  bool left = false;
  for (const Decision& d : Tick(c)) left = left || (d.job == "o" && d.setting == "left");
  EXPECT_TRUE(left);
}

// What job "o" can try through its own directory against job "g": claim g's
// name in its registration, link its config or status to g's. Nothing
// reaches g: its config stays what the coordinator gave it.
TEST_F(CoordinatorTest, AJobCannotChangeAnotherJobsSettingsFromItsDirectory) {
  own_dirs_ = true;
  Register("g", "guarantee");
  Status("g", 1, 2 * kGiB);
  ASSERT_EQ(mkdir((dir_ + "/o").c_str(), 0755), 0);
  test::WriteFileAtomically(dir_ + "/o/job.json", R"({"name": "g", "role": "opportunistic"})");
  ASSERT_EQ(symlink("../g/config.json", (dir_ + "/o/config.json").c_str()), 0);
  ASSERT_EQ(symlink("../g/status.json", (dir_ + "/o/status.json").c_str()), 0);
  Coordinator c(Options());
  int o_refused = 0;
  for (int i = 0; i < 3; ++i) {
    now_ += absl::Milliseconds(500);
    Status("g", 2 + i, 2 * kGiB);
    for (const Decision& d : Tick(c)) {
      if (d.job == "o" && d.setting == "ignored") {
        ++o_refused;
        EXPECT_THAT(d.reason, HasSubstr("o/config.json' is a symbolic link"));
      }
    }
  }
  EXPECT_EQ(o_refused, 1);
  // g keeps everything but o's floor, and its config is a file of its own.
  EXPECT_EQ(Memory("g"), 16 * kGiB - 256 * kMiB);
  EXPECT_EQ(Perf("g"), 100);
  struct stat st;
  ASSERT_EQ(lstat((dir_ + "/g/config.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
}

// A job directory that is a link, or that every user may write in, and a
// job registered both ways, are ignored (said once); the others go on.
TEST_F(CoordinatorTest, JobDirectoriesOthersCouldAlterAreIgnoredOnce) {
  own_dirs_ = true;
  Register("g", "guarantee");
  Register("open", "opportunistic");
  ASSERT_EQ(chmod((dir_ + "/open").c_str(), 0777), 0);
  const std::string elsewhere = test::MakeTempDir("coordinator_elsewhere");
  test::WriteFileAtomically(elsewhere + "/job.json", R"({"role": "opportunistic"})");
  ASSERT_EQ(symlink(elsewhere.c_str(), (dir_ + "/linked").c_str()), 0);
  Register("twice", "opportunistic");
  test::WriteFileAtomically(dir_ + "/twice.job.json", R"({"role": "opportunistic"})");
  Coordinator c(Options());
  std::map<std::string, std::vector<std::string>> ignored;
  for (int i = 0; i < 3; ++i) {
    now_ += absl::Milliseconds(500);
    for (const Decision& d : Tick(c)) {
      if (d.setting == "ignored") ignored[d.job].push_back(d.reason);
      if (d.job != "g") {
        EXPECT_NE(d.setting, "found") << d.job;
      }
    }
    if (i == 0) Status("g", 1, 2 * kGiB);
  }
  ASSERT_EQ(ignored["open"].size(), 1u);
  EXPECT_THAT(ignored["open"][0], HasSubstr("/open' is writable by every user"));
  ASSERT_EQ(ignored["linked"].size(), 1u);
  EXPECT_THAT(ignored["linked"][0], HasSubstr("/linked' is a symbolic link, not a directory"));
  ASSERT_EQ(ignored["twice"].size(), 1u);
  EXPECT_THAT(ignored["twice"][0], HasSubstr("registered twice"));
  EXPECT_FALSE(std::filesystem::exists(elsewhere + "/config.json"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/open/config.json"));
  // g alone: all of the GPU.
  EXPECT_EQ(Memory("g"), 16 * kGiB);
  // Mended, the job is found.
  ASSERT_EQ(chmod((dir_ + "/open").c_str(), 0755), 0);
  bool found = false;
  for (const Decision& d : Tick(c)) found = found || (d.job == "open" && d.setting == "found");
  EXPECT_TRUE(found);
}

// A file in a job's directory that another user owns (a tenant's file
// placed in another's directory by someone with the rights to) or that
// every user may write: the job is ignored, said once, until mended.
TEST_F(CoordinatorTest, JobFilesOfAnotherOwnerOrWritableByAllAreIgnored) {
  own_dirs_ = true;
  Register("g", "guarantee");
  Register("o", "opportunistic");
  Status("o", 1, kGiB);
  ASSERT_EQ(chmod(Files("o").status.c_str(), 0666), 0);
  Coordinator c(Options());
  std::vector<std::string> reasons;
  for (int i = 0; i < 2; ++i) {
    for (const Decision& d : Tick(c)) {
      if (d.job == "o") {
        EXPECT_EQ(d.setting, "ignored");
        reasons.push_back(d.reason);
      }
    }
  }
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_THAT(reasons[0], HasSubstr("o/status.json' is writable by every user"));
  ASSERT_EQ(chmod(Files("o").status.c_str(), 0644), 0);
  if (geteuid() != 0) {
    GTEST_SKIP() << "the rest gives a file another owner, which needs root";
  }
  ASSERT_EQ(chown(Files("o").registration.c_str(), 4242, 4242), 0);
  reasons.clear();
  for (const Decision& d : Tick(c)) {
    if (d.job == "o") reasons.push_back(d.reason);
  }
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_THAT(reasons[0], HasSubstr("o/job.json' belongs to uid 4242, its directory to uid 0"));
  ASSERT_EQ(chown(Files("o").registration.c_str(), 0, 0), 0);
  bool found = false;
  for (const Decision& d : Tick(c)) found = found || (d.job == "o" && d.setting == "found");
  EXPECT_TRUE(found);
}

TEST_F(CoordinatorTest, ARestartedCoordinatorStartsFromTheConfigsOnDisk) {
  Register("g", "guarantee");
  Register("o", "opportunistic");
  test::WriteFileAtomically(dir_ + "/o.config.json", R"({"perfControl": 30})");
  Coordinator c(Options());
  bool found = false;
  for (const Decision& d : Tick(c)) {
    found = found || (d.job == "o" && d.setting == "found" &&
                      absl::StrContains(d.reason, "perfControl 30"));
  }
  EXPECT_TRUE(found);
  // Calibrated, then resumed at the share it had, not at 100.
  Run(c, 7.5, 10);
  EXPECT_EQ(Perf("o"), 30);
}

TEST_F(CoordinatorTest, DecisionRowsQuoteWhatNeedsIt) {
  EXPECT_EQ(DecisionCsvHeader(), "time_s,job,setting,old,new,reason\n");
  EXPECT_EQ(DecisionCsvRow({1.5, "o", "perfControl", "100", "90", "a, \"b\""}),
            "1.500,o,perfControl,100,90,\"a, \"\"b\"\"\"\n");
  EXPECT_TRUE(CheckCoordinatorPolicy("tgs").ok());
  EXPECT_THAT(std::string(CheckCoordinatorPolicy("fifo").message()), HasSubstr("'fifo'"));
}

}  // namespace
}  // namespace minitf
