#include "bench/harness/experiment/coordinator_process.h"

#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "bench/harness/jobs/job_process.h"
#include "fmt/format.h"
#include "platform/file.h"
#include "platform/logging.h"
#include "platform/status_macros.h"

namespace minitf::harness {

absl::StatusOr<std::unique_ptr<CoordinatorProcess>> CoordinatorProcess::Start(
    const std::string& jobs_dir, const std::string& policy, double target, double interval_s,
    int64_t capacity_bytes) {
  const std::string log = jobs_dir + "/coordinator.csv";
  std::error_code ignored;
  std::filesystem::remove(log, ignored);  // An earlier run's decisions.
  MINITF_ASSIGN_OR_RETURN(
      const pid_t pid,
      SpawnMinitf({"coordinator", jobs_dir, "--policy", policy, "--gpu-memory",
                   absl::StrCat(capacity_bytes), "--target", absl::StrCat(target), "--interval",
                   absl::StrCat(interval_s), "--log", log},
                  jobs_dir + "/coordinator.log", {}));
  return std::unique_ptr<CoordinatorProcess>(new CoordinatorProcess(pid, log, absl::Now()));
}

CoordinatorProcess::~CoordinatorProcess() { Stop(); }

std::string CoordinatorProcess::Ended() {
  if (!ended_.empty()) return ended_;
  int wait_status = 0;
  if (waitpid(pid_, &wait_status, WNOHANG) == pid_) ended_ = DescribeExit(wait_status);
  return ended_;
}

void CoordinatorProcess::Stop() {
  if (!Ended().empty()) return;
  kill(pid_, SIGTERM);
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (Ended().empty() && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(10));
  if (Ended().empty()) {
    kill(pid_, SIGKILL);
    int wait_status = 0;
    waitpid(pid_, &wait_status, 0);
    ended_ = DescribeExit(wait_status);
  }
}

void CoordinatorProcess::ReadDecisions(absl::Time origin,
                                       std::vector<CoordinatorDecision>* decisions,
                                       std::vector<PerformedAction>* actions) const {
  absl::StatusOr<std::string> csv = ReadRegularFile(log_, int64_t{1} << 30, "a decision log");
  if (!csv.ok()) {
    LOG(WARNING, "the coordinator's decisions are lost: {}", csv.status());
    return;
  }
  const double offset_s = absl::ToDoubleSeconds(started_ - origin);
  bool header = true;
  for (absl::string_view line : absl::StrSplit(*csv, '\n', absl::SkipEmpty())) {
    if (std::exchange(header, false)) continue;
    // time, job, setting, old, new, reason: job names and values hold no comma.
    const std::vector<absl::string_view> f = absl::StrSplit(line, absl::MaxSplits(',', 5));
    double time_s = 0;
    if (f.size() < 6 || !absl::SimpleAtod(f[0], &time_s)) continue;
    time_s += offset_s;
    decisions->push_back({time_s, absl::StrCat(fmt::format("{:.3f}", time_s), ",",
                                               absl::StrJoin(f.begin() + 1, f.end(), ","), "\n")});
    int64_t value = 0;
    if (!absl::SimpleAtoi(f[4], &value)) continue;
    TimelineAction action;
    action.at_s = time_s;
    action.job = std::string(f[1]);
    if (f[2] == "perfControl") {
      action.perf_control = static_cast<int>(value);
    } else if (f[2] == "maxDeviceMem") {
      action.max_device_mem = value;
    } else {
      continue;
    }
    actions->push_back({time_s, std::move(action)});
  }
}

}  // namespace minitf::harness
