#include "bench/harness/jobs/job_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "bench/harness/jobs/steps_csv.h"
#include "bench/harness/scenario/job_spec_json.h"
#include "nlohmann/json.hpp"
#include "platform/file.h"
#include "platform/logging.h"
#include "platform/status_macros.h"

extern char** environ;

namespace minitf::harness {
namespace {

// Past the planned end, how long a process may take before SIGTERM, and
// after SIGTERM before SIGKILL.
constexpr absl::Duration kStopGrace = absl::Seconds(30);
constexpr absl::Duration kKillGrace = absl::Seconds(10);
constexpr int64_t kMaxOutputBytes = int64_t{1} << 30;

// The start of the job's log's last lines, for an error.
std::string LogTail(const std::string& log_file) {
  absl::StatusOr<std::string> log = ReadRegularFile(log_file, kMaxOutputBytes, "a log");
  if (!log.ok()) return "";
  std::string tail = log->size() > 2000 ? log->substr(log->size() - 2000) : *log;
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  return tail;
}

// The summary's JSON, or null when there is none (yet).
nlohmann::json ReadJson(const std::string& path) {
  absl::StatusOr<std::string> text = ReadRegularFile(path, kMaxOutputBytes, "a JSON file");
  if (!text.ok()) return nlohmann::json();
  return nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
}

// The JSON object at `path` when the file was rewritten since `*written`
// (which then moves on); null when unchanged, absent or not an object yet
// (read again next time). The experiment asks about ten times as often as
// a job rewrites its files, so an unchanged one is not parsed again.
nlohmann::json ReadIfRewritten(const std::string& path, std::filesystem::file_time_type* written) {
  std::error_code error;
  const std::filesystem::file_time_type now = std::filesystem::last_write_time(path, error);
  if (error || now == *written) return nlohmann::json();
  nlohmann::json j = ReadJson(path);
  if (!j.is_object()) return nlohmann::json();
  *written = now;
  return j;
}

int64_t IntField(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<int64_t>()
                                                                        : 0;
}

}  // namespace

absl::StatusOr<pid_t> SpawnMinitf(const std::vector<std::string>& args,
                                  const std::string& log_file,
                                  const std::vector<std::string>& drop_env,
                                  const std::vector<std::string>& set_env) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    return absl::InternalError(absl::StrCat("cannot find this program (/proc/self/exe): ",
                                            error.message()));
  }
  std::vector<std::string> argv_storage = {self.string()};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    const absl::string_view entry(*e);
    bool dropped = false;
    for (const std::string& name : drop_env) {
      dropped = dropped || absl::StartsWith(entry, absl::StrCat(name, "="));
    }
    for (const std::string& set : set_env) {
      const absl::string_view name = absl::string_view(set).substr(0, set.find('=') + 1);
      dropped = dropped || absl::StartsWith(entry, name);
    }
    if (!dropped) envp.push_back(*e);
  }
  std::vector<std::string> set_storage = set_env;
  for (std::string& set : set_storage) envp.push_back(set.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int r = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (r != 0) {
    return absl::InternalError(absl::StrCat("cannot start ", argv_storage[0], " ", args.front(),
                                            ": ", std::strerror(r)));
  }
  return pid;
}

std::string DescribeExit(int wait_status) {
  if (WIFEXITED(wait_status)) return absl::StrCat("exited with status ", WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    const int signo = WTERMSIG(wait_status);
    const char* abbrev = sigabbrev_np(signo);
    return absl::StrCat("was killed by ",
                        abbrev != nullptr ? absl::StrCat("SIG", abbrev) : absl::StrCat("signal ", signo));
  }
  return absl::StrCat("ended with wait status ", wait_status);
}

std::string JobProcess::File(absl::string_view suffix) const {
  return absl::StrCat(options_.dir, "/", options_.spec.name, suffix);
}

absl::StatusOr<std::unique_ptr<JobProcess>> JobProcess::Create(const Options& options) {
  const std::string base = absl::StrCat(options.dir, "/", options.spec.name);
  const std::string run_file = base + ".run.json";
  const std::string summary_file = base + ".summary.json";
  const std::string log_file = base + ".log";
  std::error_code ignored;
  for (const char* stale : {".start", ".summary.json", ".steps.csv", ".trace.json"}) {
    std::filesystem::remove(base + stale, ignored);
  }
  MINITF_RETURN_IF_ERROR(
      WriteFileAtomically(run_file, OneJobScenarioJson(options.scenario, options.spec)));
  std::vector<std::string> args = {"job",           run_file,
                                   "--out",         options.dir,
                                   "--config-file", options.config_file,
                                   "--status-file", options.status_file,
                                   "--start-file",  base + ".start"};
  if (options.trace) {
    args.push_back("--trace");
    args.push_back(base + ".trace.json");
  }
  // The scenario's limits are the job's, not a device plugin's, and its
  // MPS client priority the experiment's.
  MINITF_ASSIGN_OR_RETURN(
      const pid_t pid,
      SpawnMinitf(args, log_file,
                  {"CUDA_DEVICE_MEMORY_LIMIT", "CUDA_DEVICE_MEMORY_LIMIT_0", "CUDA_DEVICE_SM_LIMIT",
                   "CUDA_MPS_CLIENT_PRIORITY", "GPU_CONFIG_FILE", "GPU_STATUS_FILE"},
                  options.env));
  const absl::Time give_up = absl::Now() + options.setup_timeout;
  while (true) {
    const nlohmann::json summary = ReadJson(summary_file);
    if (summary.is_object() && summary.value("status", "") == "ready") {
      return std::unique_ptr<JobProcess>(
          new JobProcess(options, pid, IntField(summary, "device_capacity_bytes")));
    }
    int wait_status = 0;
    if (waitpid(pid, &wait_status, WNOHANG) == pid) {
      std::string why = summary.is_object() ? summary.value("error", "") : "";
      if (why.empty()) why = LogTail(log_file);
      return absl::FailedPreconditionError(absl::StrCat(
          "job '", options.spec.name, "': its process ", DescribeExit(wait_status),
          " while setting up: ", why, " (log: ", log_file, ")"));
    }
    if (absl::Now() >= give_up) {
      kill(pid, SIGKILL);
      waitpid(pid, &wait_status, 0);
      return absl::DeadlineExceededError(
          absl::StrCat("job '", options.spec.name, "': its process did not set up within ",
                       absl::FormatDuration(options.setup_timeout), " (log: ", log_file, ")"));
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
}

JobProcess::JobProcess(Options options, pid_t pid, int64_t capacity_bytes)
    : options_(std::move(options)), pid_(pid), capacity_bytes_(capacity_bytes) {}

JobProcess::~JobProcess() {
  MutexLock lock(&mu_);
  if (Reap()) return;
  kill(pid_, SIGKILL);
  int wait_status = 0;
  waitpid(pid_, &wait_status, 0);
}

void JobProcess::Start(absl::Time experiment_start) {
  MutexLock lock(&mu_);
  start_ = experiment_start;
  absl::Status written =
      WriteFileAtomically(File(".start"), absl::StrCat(absl::ToUnixMicros(experiment_start)));
  if (!written.ok()) {
    LOG(ERROR, "job '{}': {}; stopping it", options_.spec.name, written);
    kill(pid_, SIGTERM);
  }
}

void JobProcess::RequestStop() {}

void JobProcess::Interrupt() {
  MutexLock lock(&mu_);
  if (Reap()) return;
  interrupted_ = true;
  kill(pid_, SIGTERM);
}

void JobProcess::Join() {
  MutexLock lock(&mu_);
  const JobSpec& spec = options_.spec;
  const double end_s = spec.duration_s > 0
                           ? std::min(options_.scenario.duration_s, spec.start_s + spec.duration_s)
                           : options_.scenario.duration_s;
  const absl::Time planned_end =
      start_ == absl::InfiniteFuture() ? absl::Now() : start_ + absl::Seconds(end_s);
  bool termed = false;
  bool killed = false;
  while (!Reap()) {
    const absl::Time now = absl::Now();
    if (!termed && now > planned_end + kStopGrace) {
      LOG(WARNING, "job '{}': its process runs {} past its end; sending SIGTERM", spec.name,
          absl::FormatDuration(kStopGrace));
      kill(pid_, SIGTERM);
      termed = true;
    } else if (!killed && now > planned_end + kStopGrace + kKillGrace) {
      LOG(WARNING, "job '{}': its process ignores SIGTERM; sending SIGKILL", spec.name);
      kill(pid_, SIGKILL);
      killed = true;
    }
    mu_.Unlock();
    absl::SleepFor(absl::Milliseconds(20));
    mu_.Lock();
  }
}

absl::Status JobProcess::AwaitPerfControl(int, absl::Duration) const { return absl::OkStatus(); }

bool JobProcess::Reap() const {
  if (reaped_) return true;
  int wait_status = 0;
  const pid_t r = waitpid(pid_, &wait_status, WNOHANG);
  if (r == pid_ || (r < 0 && errno == ECHILD)) {
    reaped_ = true;
    wait_status_ = r == pid_ ? wait_status : 0;
  }
  return reaped_;
}

void JobProcess::ReadOutputs() const {
  if (outputs_read_ || !Reap()) return;
  outputs_read_ = true;
  const std::string steps_file = File(".steps.csv");
  if (absl::StatusOr<std::string> csv = ReadRegularFile(steps_file, kMaxOutputBytes, "steps");
      csv.ok()) {
    absl::StatusOr<std::vector<StepRecord>> parsed = ParseStepsCsv(*csv, steps_file);
    if (parsed.ok()) {
      records_ = *std::move(parsed);
    } else {
      LOG(WARNING, "job '{}': {}", options_.spec.name, parsed.status());
    }
  }
  if (options_.trace) {
    const std::string trace_file = File(".trace.json");
    if (absl::StatusOr<std::string> text = ReadRegularFile(trace_file, kMaxOutputBytes, "a trace");
        text.ok()) {
      absl::Status parsed = ParseTraceSpansJson(*text, trace_file, &trace_, &trace_dropped_);
      if (!parsed.ok()) LOG(WARNING, "job '{}': {}", options_.spec.name, parsed);
    }
  }
  const nlohmann::json summary = ReadJson(File(".summary.json"));
  const std::string ended = summary.is_object() ? summary.value("status", "") : "";
  const bool clean_exit = WIFEXITED(wait_status_) && WEXITSTATUS(wait_status_) == 0;
  const bool interrupted_exit =
      interrupted_ && WIFEXITED(wait_status_) && WEXITSTATUS(wait_status_) == 128 + SIGTERM;
  if ((clean_exit && ended == "complete") || interrupted_exit) {
    status_ = absl::OkStatus();
  } else if (ended == "failed" && summary.contains("error")) {
    status_ = absl::AbortedError(absl::StrCat(summary.value("error", ""), " (its process ",
                                              DescribeExit(wait_status_), ")"));
  } else {
    status_ = absl::AbortedError(absl::StrCat("its process (pid ", pid_, ") ",
                                              DescribeExit(wait_status_), " after ",
                                              records_.size(), " steps; log: ", File(".log")));
  }
}

std::vector<StepRecord> JobProcess::Records() const {
  MutexLock lock(&mu_);
  ReadOutputs();
  return records_;
}

int64_t JobProcess::steps_done() const {
  MutexLock lock(&mu_);
  if (Reap()) {
    ReadOutputs();
    return static_cast<int64_t>(records_.size());
  }
  ReadStatus();
  return last_steps_;
}

void JobProcess::ReadStatus() const {
  const nlohmann::json stats = ReadIfRewritten(options_.status_file, &status_written_);
  if (stats.is_null()) return;
  last_steps_ = IntField(stats, "stepCount");
  if (!stats.contains("gpuUsageInfo") || !stats["gpuUsageInfo"].is_object() ||
      stats["gpuUsageInfo"].empty()) {
    return;
  }
  const nlohmann::json& gpu = stats["gpuUsageInfo"].begin().value();
  last_sample_.device_bytes_in_use = IntField(gpu, "deviceMemUsedMax");
  last_sample_.device_pool_bytes = IntField(gpu, "deviceMemPoolSize");
  last_sample_.device_limit_bytes = IntField(gpu, "deviceMemLimit");
  last_sample_.host_bytes_in_use = IntField(gpu, "hostMemUsedMax");
  last_sample_.gpu_busy = absl::Microseconds(IntField(gpu, "gpuBusyUs"));
}

void JobProcess::ReadConfig() const {
  // Not the status file's perfControl: the job rewrites that after a step,
  // and a job held at perfControl 0 takes none.
  const nlohmann::json config = ReadIfRewritten(options_.config_file, &config_written_);
  if (config.contains("perfControl") && config["perfControl"].is_number_integer()) {
    last_sample_.perf_control = config["perfControl"].get<int>();
  }
}

bool JobProcess::finished() const {
  MutexLock lock(&mu_);
  return Reap();
}

absl::Status JobProcess::status() const {
  MutexLock lock(&mu_);
  ReadOutputs();
  return status_;
}

JobSample JobProcess::Sample() const {
  MutexLock lock(&mu_);
  if (Reap()) {  // Its memory is free; its busy time stays what it was.
    JobSample ended;
    ended.gpu_busy = last_sample_.gpu_busy;
    return ended;
  }
  ReadStatus();
  ReadConfig();
  return last_sample_;
}

std::vector<TraceSpan> JobProcess::TraceSpans() const {
  MutexLock lock(&mu_);
  ReadOutputs();
  return trace_;
}

int64_t JobProcess::TraceDroppedSteps() const {
  MutexLock lock(&mu_);
  ReadOutputs();
  return trace_dropped_;
}

}  // namespace minitf::harness
