#include "bench/harness/experiment/experiment.h"

#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "session/antman/coordinator.h"
#include "bench/harness/experiment/cli_args.h"
#include "bench/harness/experiment/coordinator_process.h"
#include "bench/harness/experiment/metrics.h"
#include "bench/harness/experiment/timeline.h"
#include "bench/harness/jobs/job_process.h"
#include "fmt/format.h"
#include "platform/file.h"
#include "platform/logging.h"
#include "platform/status_macros.h"
#include "stream/sim_gpu/sim_gpu_options.h"
#include "stream/sim_gpu/sim_gpu_shared_device.h"

namespace minitf::harness {
namespace {

constexpr double kMaxBaselineSeconds = 15;
// The progress line's rates are measured over this window.
constexpr double kRateWindowSeconds = 2;
// Set-up may always take this long, however short the experiment.
constexpr double kMinSetupSeconds = 1;
// How often the coordinator, when there is one, takes its decisions.
constexpr double kCoordinatorIntervalSeconds = 0.5;
// How long a job may take to notice its rewritten config file.
constexpr absl::Duration kConfigTakeTimeout = absl::Seconds(30);

GPUConfig InitialConfig(const JobSpec& spec) {
  GPUConfig config;
  config.perf_control = spec.perf_control;
  if (spec.memory_limit > 0) config.max_device_mem["GPU:0"] = spec.memory_limit;
  return config;
}

// What the job's config file holds while it sets up: its initial config,
// but never suspended (perfControl 0 would hold the variables'
// initialisation at its step boundary, with no one to release it).
GPUConfig SetUpConfig(const JobSpec& spec) {
  GPUConfig config = InitialConfig(spec);
  if (spec.perf_control == 0) config.perf_control = 100;
  return config;
}

JobRunner::Options RunnerOptions(const Scenario& scenario, const JobSpec& spec,
                                 const std::string& dir, size_t max_trace_spans) {
  JobRunner::Options o;
  o.spec = spec;
  o.simgpu_options = scenario.simgpu_options;
  o.platform = scenario.platform;
  o.config_file = absl::StrCat(dir, "/", spec.name, kConfigSuffix);
  o.status_file = absl::StrCat(dir, "/", spec.name, kStatusSuffix);
  o.experiment_duration_s = scenario.duration_s;
  o.max_trace_spans = max_trace_spans;
  // A job that cannot even be set up in the experiment's time cannot take
  // part in it.
  o.setup_timeout = absl::Seconds(std::max(scenario.duration_s, kMinSetupSeconds));
  return o;
}

// The answer of `options.interruption`: "" while the run may go on.
std::string Interruption(const ExperimentOptions& options) {
  return options.interruption ? options.interruption() : std::string();
}

// When `spec` stops being part of the experiment, in seconds from its start.
double JobEnd(const Scenario& scenario, const JobSpec& spec) {
  return spec.duration_s > 0 ? std::min(scenario.duration_s, spec.start_s + spec.duration_s)
                             : scenario.duration_s;
}

// A job of the experiment, set up: a thread of this process, or a `minitf
// job` process of its own.
absl::StatusOr<std::unique_ptr<ExperimentJob>> MakeJob(const Scenario& scenario,
                                                       const JobSpec& spec, const std::string& dir,
                                                       size_t max_trace_spans, bool process,
                                                       bool defer = false,
                                                       bool below_normal = false) {
  const JobRunner::Options o = RunnerOptions(scenario, spec, dir, max_trace_spans);
  if (!process) {
    MINITF_ASSIGN_OR_RETURN(std::unique_ptr<JobRunner> runner, JobRunner::Create(o));
    return std::unique_ptr<ExperimentJob>(std::move(runner));
  }
  JobProcess::Options p;
  p.scenario = scenario;
  if (defer) {
    MINITF_ASSIGN_OR_RETURN(p.scenario.simgpu_options,
                            OverrideSimGPUOptions(scenario.simgpu_options, "defer=true"));
  }
  if (below_normal) p.env.push_back("CUDA_MPS_CLIENT_PRIORITY=1");
  p.spec = spec;
  p.dir = dir;
  p.config_file = o.config_file;
  p.status_file = o.status_file;
  p.trace = max_trace_spans > 0;
  p.setup_timeout = o.setup_timeout;
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<JobProcess> job, JobProcess::Create(p));
  return std::unique_ptr<ExperimentJob>(std::move(job));
}

// Runs `spec` alone, unrestricted, for `seconds`; its steady steps/s. An
// interruption stops it at its next step boundary.
// Runs `spec` alone for `seconds`; sets its solo figures in `*job`.
absl::Status RunSolo(const Scenario& scenario, JobSpec spec, const std::string& dir,
                     double seconds, const ExperimentOptions& experiment, JobResult* result) {
  spec.start_s = 0;
  spec.duration_s = seconds;
  spec.perf_control = 100;
  Scenario solo = scenario;
  solo.duration_s = seconds;
  JobRunner::Options options = RunnerOptions(solo, spec, dir, 0);
  MINITF_RETURN_IF_ERROR(WriteFileAtomically(options.config_file,
                                             GPUConfigToJson(InitialConfig(spec))));
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<ExperimentJob> job,
                          MakeJob(solo, spec, dir, 0, experiment.processes));
  job->Start(absl::Now());
  while (!job->finished()) {
    if (!Interruption(experiment).empty()) job->Interrupt();
    absl::SleepFor(absl::Milliseconds(20));
  }
  job->Join();
  result->solo_status = job->status();
  const std::vector<StepRecord> steps = job->Records();
  result->solo_steps_per_s = SteadyStepsPerSecond(steps);
  // The first step builds the executors: not the job's steady share.
  result->solo_gpu_share =
      GpuShare(steps.size() > 1 ? std::vector<StepRecord>(steps.begin() + 1, steps.end()) : steps);
  return absl::OkStatus();
}

// The progress line: elapsed/total and each job's recent step rate.
class Progress {
 public:
  Progress(const ExperimentOptions& options, const std::vector<JobSpec>& jobs, double total_s)
      : options_(options), jobs_(jobs), total_s_(total_s) {}

  // `samples`: the jobs' latest, in scenario order. The perfControl shown is
  // the one a job says it holds (a coordinator's too), else the timeline's.
  void Update(double now_s, const std::vector<std::unique_ptr<ExperimentJob>>& runners,
              const TimelineDriver& driver, const std::vector<JobSample>& samples) {
    if (options_.progress == nullptr) return;
    std::vector<int64_t> steps;
    for (const auto& r : runners) steps.push_back(r->steps_done());
    history_.push_back({now_s, steps});
    while (history_.size() > 2 && history_[1].first <= now_s - kRateWindowSeconds) {
      history_.pop_front();
    }
    const double period = options_.progress_is_tty ? 0.5 : 5;
    if (now_s < last_print_s_ + period) return;
    last_print_s_ = now_s;
    const auto& [then_s, then_steps] = history_.front();
    std::string line = fmt::format("[{:6.1f}/{:.1f} s]", now_s, total_s_);
    for (size_t i = 0; i < runners.size(); ++i) {
      const double rate =
          now_s > then_s ? static_cast<double>(steps[i] - then_steps[i]) / (now_s - then_s) : 0;
      std::optional<int> perf = i < samples.size() ? samples[i].perf_control : std::nullopt;
      if (!perf.has_value()) perf = driver.config(jobs_[i].name).perf_control;
      line += fmt::format("  {} {:.1f} steps/s (perf {})", jobs_[i].name, rate, perf.value_or(100));
      if (runners[i]->finished()) line += " done";
    }
    if (options_.progress_is_tty) {
      *options_.progress << "\r" << line << "\033[K" << std::flush;
    } else {
      *options_.progress << line << "\n" << std::flush;
    }
  }

  void Finish() {
    if (options_.progress != nullptr && options_.progress_is_tty) *options_.progress << "\n";
  }

 private:
  const ExperimentOptions& options_;
  const std::vector<JobSpec>& jobs_;
  const double total_s_;
  std::deque<std::pair<double, std::vector<int64_t>>> history_;
  double last_print_s_ = -1e9;
};

}  // namespace

absl::StatusOr<std::string> OverrideSimGPUOptions(absl::string_view base,
                                                  absl::string_view overrides) {
  auto key_of = [](absl::string_view item) {
    return absl::AsciiStrToLower(absl::StripAsciiWhitespace(item.substr(0, item.find('='))));
  };
  std::set<std::string> replaced;
  for (absl::string_view item : absl::StrSplit(overrides, ',', absl::SkipWhitespace())) {
    replaced.insert(key_of(item));
  }
  std::vector<std::string> items;
  for (absl::string_view item : absl::StrSplit(base, ',', absl::SkipWhitespace())) {
    if (!replaced.count(key_of(item))) items.emplace_back(absl::StripAsciiWhitespace(item));
  }
  for (absl::string_view item : absl::StrSplit(overrides, ',', absl::SkipWhitespace())) {
    items.emplace_back(absl::StripAsciiWhitespace(item));
  }
  std::string merged = absl::StrJoin(items, ",");
  MINITF_RETURN_IF_ERROR(se::ParseSimGPUOptions(merged).status());
  return merged;
}

Scenario ScaleScenario(Scenario scenario, double seconds) {
  if (seconds <= 0 || scenario.duration_s <= 0) return scenario;
  const double f = seconds / scenario.duration_s;
  scenario.duration_s = seconds;
  for (JobSpec& job : scenario.jobs) {
    job.start_s *= f;
    job.duration_s *= f;
  }
  for (TimelineAction& action : scenario.timeline) action.at_s *= f;
  return scenario;
}

namespace {

// One experiment, its steps in the order RunExperiment takes them. Each
// step that can fail returns the error; Interrupted() says whether the user
// stopped it (the result then holds what was measured).
class ExperimentRun {
 public:
  ExperimentRun(const Scenario& input, const ExperimentOptions& options) : options_(options) {
    result_.scenario = ScaleScenario(input, options.seconds);
  }
  // The coordinator and the jobs end first; then a shared SimGPU device of
  // the experiment's own is removed.
  ~ExperimentRun() {
    coordinator_process_.reset();
    coordinator_.reset();
    runners_.clear();
    if (shared_device_.empty()) return;
    absl::StatusOr<se::SimGPUOptions> o = se::ParseSimGPUOptions(scenario().simgpu_options);
    if (absl::Status removed = se::RemoveSharedSimGPU(shared_device_, o.ok() ? o->count : 1);
        !removed.ok()) {
      LOG(WARNING, "{}", removed);
    }
  }
  ExperimentRun(const ExperimentRun&) = delete;
  ExperimentRun& operator=(const ExperimentRun&) = delete;

  // The options applied to the scenario, the output directories, a result
  // row per job.
  absl::Status Prepare();
  // Each job alone first, when asked for.
  absl::Status RunBaselines();
  // The timeline (or the coordinator) and every job set up, the jobs not
  // yet stepping.
  absl::Status SetUpJobs();
  // The coordinator (in this process or its own) and the jobs started.
  absl::Status Start();
  // Samples the device and performs the timeline until every job is done,
  // the scenario's time is up or the user interrupts; the error that
  // stopped it early.
  absl::Status Observe();
  // The suspended jobs released, every job stopped and joined; `failure`
  // keeps the first error.
  void StopJobs(absl::Status* failure);
  // Each job's steps, status and trace in the result; the shared device's
  // bytes left.
  void Collect();

  bool Interrupted() {
    if (!result_.interrupted()) result_.interrupted_by = Interruption(options_);
    return result_.interrupted();
  }
  ExperimentResult TakeResult() { return std::move(result_); }

 private:
  Scenario& scenario() { return result_.scenario; }
  void Say(const std::string& what);
  void RecordTimeline(double now_s, std::vector<TimelineAction> performed);
  void WatchCoordinatorProcess(double now_s);
  absl::Status CoordinatorRound(double now_s);
  void Sample(double now_s);

  const ExperimentOptions& options_;
  ExperimentResult result_;
  std::string shared_device_;
  std::string jobs_dir_;
  bool coordinated_ = false;
  std::optional<TimelineDriver> driver_;
  std::vector<std::unique_ptr<ExperimentJob>> runners_;
  absl::Time start_;
  std::optional<Coordinator> coordinator_;
  std::unique_ptr<CoordinatorProcess> coordinator_process_;
  absl::Time next_round_;
  std::vector<absl::Duration> last_busy_;
  double last_sample_s_ = 0;
};

absl::Status ExperimentRun::Prepare() {
  Scenario& s = scenario();
  if (!options_.pacing.empty()) {
    for (JobSpec& job : s.jobs) job.pacing = options_.pacing;
  }
  if (!options_.stream_priority.empty()) {
    for (JobSpec& job : s.jobs) job.stream_priority = options_.stream_priority;
  }
  // Processes on SimGPU share one device of this experiment's own, removed
  // at the end. It is named with the overrides, which may set how the
  // processes share it (share=, timeslice_us=: keys of a shared device).
  result_.processes = options_.processes;
  result_.defer_opportunistic = options_.defer_opportunistic;
  result_.below_normal_opportunistic = options_.below_normal_opportunistic;
  std::string overrides = options_.simgpu_overrides;
  if (options_.processes) {
    shared_device_ = absl::StrCat("colocate-", getpid(), "-", absl::ToUnixMicros(absl::Now()));
    overrides = absl::StrCat(overrides, overrides.empty() ? "" : ",", "shared=", shared_device_);
  }
  if (!overrides.empty()) {
    MINITF_ASSIGN_OR_RETURN(s.simgpu_options, OverrideSimGPUOptions(s.simgpu_options, overrides));
  }
  MINITF_RETURN_IF_ERROR(MakeDir(options_.out_dir));
  jobs_dir_ = options_.out_dir + "/jobs";
  MINITF_RETURN_IF_ERROR(MakeDir(jobs_dir_));
  for (const JobSpec& spec : s.jobs) {
    JobResult job;
    job.spec = spec;
    result_.jobs.push_back(std::move(job));
  }
  return absl::OkStatus();
}

absl::Status ExperimentRun::RunBaselines() {
  if (!options_.baseline) return absl::OkStatus();
  const std::string solo_dir = options_.out_dir + "/baseline";
  MINITF_RETURN_IF_ERROR(MakeDir(solo_dir));
  for (JobResult& job : result_.jobs) {
    if (Interrupted()) return absl::OkStatus();
    const double seconds =
        options_.baseline_seconds > 0
            ? options_.baseline_seconds
            : std::min(kMaxBaselineSeconds, JobEnd(scenario(), job.spec) - job.spec.start_s);
    if (options_.progress != nullptr) {
      *options_.progress << fmt::format("baseline: {} alone for {:.1f} s\n", job.spec.name,
                                        seconds)
                         << std::flush;
    }
    MINITF_RETURN_IF_ERROR(RunSolo(scenario(), job.spec, solo_dir, seconds, options_, &job));
  }
  return absl::OkStatus();
}

absl::Status ExperimentRun::SetUpJobs() {
  Scenario& s = scenario();
  std::map<std::string, std::string> config_paths;
  for (const JobSpec& spec : s.jobs) {
    JobRunner::Options o = RunnerOptions(s, spec, jobs_dir_, options_.max_trace_spans);
    config_paths[spec.name] = o.config_file;
  }
  // With a coordinator, it writes the configs; the timeline is not run
  // (nor reported as run).
  result_.coordinator = options_.coordinator;
  coordinated_ = !options_.coordinator.empty();
  if (coordinated_) MINITF_RETURN_IF_ERROR(CheckCoordinatorPolicy(options_.coordinator));
  if (coordinated_ || options_.no_timeline) s.timeline.clear();
  driver_.emplace(s.timeline, config_paths);
  // An earlier run's registrations are not this run's jobs.
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(jobs_dir_, ignored)) {
    if (absl::EndsWith(entry.path().filename().string(), kRegistrationSuffix)) {
      std::filesystem::remove(entry.path(), ignored);
    }
  }
  for (const JobSpec& spec : s.jobs) {
    if (Interrupted()) return absl::OkStatus();
    MINITF_RETURN_IF_ERROR(driver_->WriteInitial(spec.name, SetUpConfig(spec)));
    const bool opportunistic = spec.role == JobRole::kOpportunistic;
    MINITF_ASSIGN_OR_RETURN(
        std::unique_ptr<ExperimentJob> runner,
        MakeJob(s, spec, jobs_dir_, options_.max_trace_spans, options_.processes,
                options_.defer_opportunistic && opportunistic,
                options_.below_normal_opportunistic && opportunistic));
    if (spec.perf_control == 0) {
      // Set up; now suspended from its first step, as the scenario says.
      MINITF_RETURN_IF_ERROR(driver_->WriteInitial(spec.name, InitialConfig(spec)));
      MINITF_RETURN_IF_ERROR(runner->AwaitPerfControl(0, kConfigTakeTimeout));
    }
    runners_.push_back(std::move(runner));
  }
  if (!runners_.empty()) result_.capacity_bytes = runners_.front()->device_capacity_bytes();
  // Job processes register themselves; threads are registered as this
  // process.
  if (coordinated_ && !options_.processes) {
    for (const JobSpec& spec : s.jobs) {
      MINITF_RETURN_IF_ERROR(
          WriteJobRegistration(jobs_dir_, spec.name, JobRoleName(spec.role), absl::Now()));
    }
  }
  return absl::OkStatus();
}

absl::Status ExperimentRun::Start() {
  start_ = absl::Now();
  if (coordinated_ && options_.processes) {
    MINITF_ASSIGN_OR_RETURN(coordinator_process_,
                            CoordinatorProcess::Start(jobs_dir_, options_.coordinator,
                                                      options_.coordinator_target,
                                                      kCoordinatorIntervalSeconds,
                                                      result_.capacity_bytes));
  } else if (coordinated_) {
    CoordinatorOptions o;
    o.dir = jobs_dir_;
    o.policy = options_.coordinator;
    o.gpu_memory_bytes = result_.capacity_bytes;
    o.target = options_.coordinator_target;
    coordinator_.emplace(std::move(o));
  }
  next_round_ = start_;
  for (auto& runner : runners_) runner->Start(start_);
  last_busy_.assign(runners_.size(), absl::ZeroDuration());
  return absl::OkStatus();
}

void ExperimentRun::Say(const std::string& what) {
  if (options_.progress != nullptr) {
    *options_.progress << (options_.progress_is_tty ? "\r\033[K" : "") << what << "\n";
  }
}

void ExperimentRun::RecordTimeline(double now_s, std::vector<TimelineAction> performed) {
  for (TimelineAction& action : performed) {
    const std::string what = fmt::format(
        "timeline at {:.1f} s: {}{}{}", now_s, action.job,
        action.max_device_mem ? absl::StrCat(" maxDeviceMem ", *action.max_device_mem) : "",
        action.perf_control ? absl::StrCat(" perfControl ", *action.perf_control) : "");
    LOG(INFO, "{}", what);
    Say(what);
    result_.actions.push_back({now_s, std::move(action)});
  }
}

void ExperimentRun::WatchCoordinatorProcess(double now_s) {
  if (coordinator_process_ == nullptr || !result_.coordinator_ended.empty()) return;
  const std::string ended = coordinator_process_->Ended();
  if (ended.empty()) return;
  result_.coordinator_ended = fmt::format("{} at {:.1f} s", ended, now_s);
  const std::string what =
      fmt::format("the coordinator {}; the jobs keep their settings", result_.coordinator_ended);
  LOG(WARNING, "{}", what);
  Say(what);
}

absl::Status ExperimentRun::CoordinatorRound(double now_s) {
  if (!coordinator_.has_value() || absl::Now() < next_round_) return absl::OkStatus();
  next_round_ = absl::Now() + absl::Seconds(kCoordinatorIntervalSeconds);
  // The jobs' heartbeats: they live as long as this process does.
  for (const JobSpec& spec : scenario().jobs) {
    (void)WriteJobRegistration(jobs_dir_, spec.name, JobRoleName(spec.role), absl::Now());
  }
  MINITF_ASSIGN_OR_RETURN(std::vector<Decision> made, coordinator_->Tick());
  for (const Decision& d : made) {
    result_.decisions.push_back({now_s, DecisionCsvRow(d)});
    TimelineAction action;
    action.at_s = now_s;
    action.job = d.job;
    int64_t value = 0;
    if (!absl::SimpleAtoi(d.new_value, &value)) continue;
    if (d.setting == "perfControl") {
      action.perf_control = static_cast<int>(value);
      LOG(INFO, "coordinator at {:.1f} s: {} perfControl {} ({})", now_s, d.job, value, d.reason);
    } else if (d.setting == "maxDeviceMem") {
      action.max_device_mem = value;
    } else {
      continue;
    }
    result_.actions.push_back({now_s, std::move(action)});
  }
  return absl::OkStatus();
}

void ExperimentRun::Sample(double now_s) {
  DeviceSample sample;
  sample.time_s = now_s;
  absl::Duration busy;
  for (size_t i = 0; i < runners_.size(); ++i) {
    sample.jobs.push_back(runners_[i]->Sample());
    busy += sample.jobs.back().gpu_busy - last_busy_[i];
    last_busy_[i] = sample.jobs.back().gpu_busy;
  }
  if (now_s > last_sample_s_) {
    sample.utilisation = std::min(1.0, absl::ToDoubleSeconds(busy) / (now_s - last_sample_s_));
  }
  last_sample_s_ = now_s;
  result_.timeline.push_back(std::move(sample));
}

absl::Status ExperimentRun::Observe() {
  Progress progress(options_, scenario().jobs, scenario().duration_s);
  const absl::Duration period = absl::Seconds(std::max(options_.sample_period_s, 0.01));
  absl::Status failure;
  while (true) {
    const double now_s = absl::ToDoubleSeconds(absl::Now() - start_);
    absl::StatusOr<std::vector<TimelineAction>> performed = driver_->Advance(now_s);
    if (!performed.ok()) {
      failure = performed.status();
      break;
    }
    RecordTimeline(now_s, std::move(*performed));
    WatchCoordinatorProcess(now_s);
    failure = CoordinatorRound(now_s);
    if (!failure.ok()) break;
    Sample(now_s);
    progress.Update(now_s, runners_, *driver_, result_.timeline.back().jobs);

    const bool all_finished = std::all_of(runners_.begin(), runners_.end(),
                                          [](const auto& r) { return r->finished(); });
    if (all_finished || now_s >= scenario().duration_s) break;
    if (Interrupted()) {
      result_.interrupted_at_s = now_s;
      break;
    }
    absl::Time wake = absl::Now() + period;
    if (!driver_->done()) wake = std::min(wake, start_ + absl::Seconds(driver_->NextAt()));
    absl::SleepFor(std::max(wake - absl::Now(), absl::ZeroDuration()));
  }
  progress.Finish();
  return failure;
}

void ExperimentRun::StopJobs(absl::Status* failure) {
  // The coordinator stops before the jobs are released, so it does not
  // suspend them again.
  if (coordinator_process_ != nullptr) {
    coordinator_process_->Stop();
    coordinator_process_->ReadDecisions(start_, &result_.decisions, &result_.actions);
  }
  // A suspended job waits at its step boundary for perfControl to rise:
  // release it, as a scheduler ending the experiment would, then stop all.
  for (const JobSpec& spec : scenario().jobs) {
    // The coordinator may have suspended any opportunistic job.
    const bool may_be_suspended = coordinated_ ? spec.role == JobRole::kOpportunistic
                                               : driver_->config(spec.name).perf_control == 0;
    if (!may_be_suspended) continue;
    TimelineAction release;
    release.at_s = absl::ToDoubleSeconds(absl::Now() - start_);
    release.job = spec.name;
    release.perf_control = 100;
    absl::Status written = driver_->Apply(release);
    if (!written.ok()) {
      if (failure->ok()) *failure = written;
      continue;
    }
    result_.actions.push_back({release.at_s, release});
  }
  // Interrupted: the steps in flight are cancelled rather than waited for.
  for (auto& runner : runners_) {
    if (result_.interrupted()) {
      runner->Interrupt();
    } else {
      runner->RequestStop();
    }
  }
  for (auto& runner : runners_) runner->Join();
  result_.wall_s = absl::ToDoubleSeconds(absl::Now() - start_);
}

void ExperimentRun::Collect() {
  for (size_t i = 0; i < runners_.size(); ++i) {
    JobResult& job = result_.jobs[i];
    job.steps = runners_[i]->Records();
    job.status = runners_[i]->status();
    job.trace = runners_[i]->TraceSpans();
    job.trace_dropped_steps = runners_[i]->TraceDroppedSteps();
  }
  // Every job has ended: on a shared SimGPU, none holds memory now.
  if (!shared_device_.empty() &&
      std::filesystem::exists("/dev/shm" + se::SharedSimGPUSegment(shared_device_, 0))) {
    absl::StatusOr<std::unique_ptr<se::SharedSimGPUDevice>> device =
        se::SharedSimGPUDevice::Attach(shared_device_, 0, result_.capacity_bytes);
    if (device.ok()) result_.device_bytes_after_jobs = (*device)->BytesInUse();
  }
}

}  // namespace

absl::StatusOr<ExperimentResult> RunExperiment(const Scenario& input,
                                               const ExperimentOptions& options) {
  ExperimentRun run(input, options);
  MINITF_RETURN_IF_ERROR(run.Prepare());
  MINITF_RETURN_IF_ERROR(run.RunBaselines());
  if (run.Interrupted()) return run.TakeResult();
  MINITF_RETURN_IF_ERROR(run.SetUpJobs());
  if (run.Interrupted()) return run.TakeResult();
  MINITF_RETURN_IF_ERROR(run.Start());
  absl::Status failure = run.Observe();
  run.StopJobs(&failure);
  MINITF_RETURN_IF_ERROR(failure);
  run.Collect();
  return run.TakeResult();
}

}  // namespace minitf::harness
