#include "cli/job_command.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "session/antman/coordinator.h"
#include "bench/harness/experiment/cli_args.h"
#include "bench/harness/experiment/experiment.h"
#include "bench/harness/experiment/metrics.h"
#include "bench/harness/experiment/timeline.h"
#include "bench/harness/jobs/hami_env.h"
#include "bench/harness/jobs/job_runner.h"
#include "bench/harness/jobs/job_trace.h"
#include "bench/harness/jobs/steps_csv.h"
#include "bench/harness/scenario/scenario.h"
#include "cli/interrupt.h"
#include "nlohmann/json.hpp"
#include "platform/file.h"
#include "platform/status_macros.h"
#include "session/antman/gpu_config.h"

namespace minitf::harness {

const char kJobUsage[] = R"(usage: minitf job JOB.json [options]

Runs one training job as this process: a job object of the scenario format
({"name": ..., "model": ..., ...}; docs/EXPERIMENTS.md), or one job of a
scenario file. Between steps it follows AntMan's config file and writes its
statistics file (docs/ANTMAN.md); it runs for the job's duration_s or
steps, or until stopped.

options:
  --job NAME            the scenario's job to run (needed when it has several)
  --out DIR             where <job>.steps.csv and <job>.summary.json go
                        (default runs/jobs/<job>)
  --config-file FILE    AntMan's config file (default $GPU_CONFIG_FILE, else
                        DIR/<job>.config.json). Written with the starting
                        limits when it does not exist yet.
  --status-file FILE    AntMan's statistics file (default $GPU_STATUS_FILE,
                        else DIR/<job>.status.json)
                        Beside a config file named <name>.config.json the job
                        registers itself for `minitf coordinator`:
                        <name>.job.json (its role and process id), removed
                        when it ends; beside one named config.json (in a
                        directory of the job's own, DIR/<job>/), job.json.
  --simgpu OPTIONS      SimGPU options replacing the scenario's values of those
                        keys (docs/SIMGPU.md)
  --seconds N           run for N seconds (0.001 to 1e7)
  --start-file FILE     part of an experiment (`minitf colocate --processes`):
                        set up, say "ready" in summary.json, then wait for
                        FILE to hold the experiment's start (Unix time in
                        microseconds); the job's start_s counts from then and
                        it stops at the scenario's end at the latest. Its
                        config file's perfControl is taken before the first
                        step.
  --trace FILE          trace every step (docs/EXPERIMENTS.md, trace.json)
                        and write the spans to FILE when the job ends
  -h, --help            this text

Starting limits, from the environment a cluster's device plugin (HAMi)
gives the container, else from the job:
  CUDA_DEVICE_MEMORY_LIMIT_0   device memory of the first visible GPU
  (or CUDA_DEVICE_MEMORY_LIMIT) ("4096m", "4g", or bytes)
  CUDA_DEVICE_SM_LIMIT         compute share in percent, as perfControl
                               (0 and 100: unrestricted)
  NVIDIA_VISIBLE_DEVICES       must leave a GPU ("none" and "void" do not)

SIGINT or SIGTERM cancels the step in flight and writes what was measured;
a second one quits at once. summary.json says "running" until then.

exit status: 0 when the job ran to its end, 1 when its set-up or a step
failed (summary.json says why), 2 for bad arguments or environment,
128 + the signal when stopped by one.
)";

namespace {

struct JobArgs {
  std::string file;
  std::string job;
  std::string out;
  std::string config_file;
  std::string status_file;
  std::string simgpu_overrides;
  std::string start_file;
  std::string trace_file;
  double seconds = 0;
};

// Parses job's arguments; std::nullopt after --help.
absl::StatusOr<std::optional<JobArgs>> ParseJobArgs(const std::vector<std::string>& args) {
  JobArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&] { return FlagValue(args, &i); };
    if (a == "-h" || a == "--help") return std::nullopt;
    if (a == "--job") {
      MINITF_ASSIGN_OR_RETURN(out.job, value());
    } else if (a == "--out") {
      MINITF_ASSIGN_OR_RETURN(out.out, value());
    } else if (a == "--config-file") {
      MINITF_ASSIGN_OR_RETURN(out.config_file, value());
    } else if (a == "--status-file") {
      MINITF_ASSIGN_OR_RETURN(out.status_file, value());
    } else if (a == "--simgpu") {
      MINITF_ASSIGN_OR_RETURN(out.simgpu_overrides, value());
      MINITF_RETURN_IF_ERROR(OverrideSimGPUOptions("", out.simgpu_overrides).status());
    } else if (a == "--start-file") {
      MINITF_ASSIGN_OR_RETURN(out.start_file, value());
    } else if (a == "--trace") {
      MINITF_ASSIGN_OR_RETURN(out.trace_file, value());
    } else if (a == "--seconds") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(out.seconds, ParseSeconds(a, v));
    } else if (!a.empty() && a[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", a, "'"));
    } else if (out.file.empty()) {
      out.file = a;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", a, "'"));
    }
  }
  if (out.file.empty()) return absl::InvalidArgumentError("job wants a JOB.json file");
  return out;
}

// The job to run, with the device its scenario names (none for a job file).
struct LoadedJob {
  JobSpec spec;
  std::string simgpu_options;
  std::string platform;
  double scenario_duration_s = 0;  // 0: a job file
};

absl::StatusOr<LoadedJob> LoadJob(const std::string& path, const std::string& name) {
  MINITF_ASSIGN_OR_RETURN(
      std::string content,
      ReadRegularFile(path, kMaxScenarioFileBytes, "a job or a scenario"));
  const nlohmann::json probe =
      nlohmann::json::parse(content, nullptr, /*allow_exceptions=*/false);
  const bool scenario = absl::EndsWith(path, ".csv") ||
                        (probe.is_object() && probe.contains("jobs"));
  if (!scenario) {
    if (!name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--job ", name, ": '", path, "' holds one job, not a scenario's list"));
    }
    MINITF_ASSIGN_OR_RETURN(JobSpec spec, ParseJobJson(content, path));
    return LoadedJob{std::move(spec), "", "", 0};
  }
  MINITF_ASSIGN_OR_RETURN(Scenario s, absl::EndsWith(path, ".csv")
                                          ? ParseScenarioCsv(content, path)
                                          : ParseScenarioJson(content, path));
  std::vector<std::string> names;
  for (const JobSpec& job : s.jobs) {
    if (job.name == name || (name.empty() && s.jobs.size() == 1)) {
      return LoadedJob{job, s.simgpu_options, s.platform, s.duration_s};
    }
    names.push_back(job.name);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      name.empty() ? "a scenario of several jobs wants --job NAME"
                   : absl::StrCat("scenario '", path, "' has no job '", name, "'"),
      "; its jobs: ", absl::StrJoin(names, ", ")));
}

// The file a flag names, else the environment's.
std::string FlagOrEnv(const std::string& flag, const char* variable) {
  if (!flag.empty()) return flag;
  const char* value = std::getenv(variable);
  return value == nullptr ? "" : value;
}

// The job's config as it starts: its memory limit on its GPU and its
// perfControl.
GPUConfig StartingConfig(const JobSpec& spec) {
  GPUConfig config;
  config.perf_control = spec.perf_control;
  if (spec.memory_limit > 0) config.max_device_mem["GPU:0"] = spec.memory_limit;
  return config;
}

std::string SummaryJson(const JobSpec& spec, const JobSummary& s, const std::string& status,
                        const std::string& signal, const std::string& config_file,
                        const std::string& status_file, int64_t capacity_bytes) {
  nlohmann::json j = {{"job", spec.name},
                      {"role", s.role},
                      {"model", spec.model},
                      {"status", status},
                      {"pid", static_cast<int64_t>(getpid())},
                      {"memory_limit_bytes", spec.memory_limit},
                      {"perf_control", spec.perf_control},
                      {"config_file", config_file},
                      {"status_file", status_file},
                      {"steps", s.steps},
                      {"steps_per_s", s.steps_per_s},
                      {"examples_per_s", s.examples_per_s},
                      {"gpu_share", s.gpu_share},
                      {"peak_device_bytes", s.peak_device_bytes},
                      {"peak_host_bytes", s.peak_host_bytes},
                      {"steps_file", absl::StrCat(spec.name, ".steps.csv")}};
  if (!s.failure.empty()) j["error"] = s.failure;
  if (!signal.empty()) j["stopped_by"] = signal;
  if (capacity_bytes > 0) j["device_capacity_bytes"] = capacity_bytes;
  return j.dump(2, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace) + "\n";
}

// Spans kept with --trace, as `minitf colocate` keeps per job.
constexpr size_t kMaxTraceSpans = 500000;
// How long the job may take to notice its config file.
constexpr absl::Duration kConfigTakeTimeout = absl::Seconds(30);

// Waits for `path` to hold the experiment's start (Unix microseconds).
// Cancelled when a signal interrupts the wait; InvalidArgument naming the
// file when it holds something else.
absl::StatusOr<absl::Time> AwaitStart(const std::string& path) {
  while (!std::filesystem::exists(path)) {
    if (InterruptSignal() != 0) {
      return absl::CancelledError("interrupted while waiting for the experiment's start");
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  MINITF_ASSIGN_OR_RETURN(std::string text, ReadRegularFile(path, 64, "a start time"));
  int64_t micros = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &micros)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "start file '", path, "' must hold the start as Unix microseconds, got '", text, "'"));
  }
  return absl::FromUnixMicros(micros);
}

// The runner's options for `spec` (already given the cluster's limits):
// the platform and SimGPU configuration of the job's file with the
// command's overrides, the bounds of set-up, and the config and statistics
// files (AntMan's, from the flags or the environment; else the job's own
// in `out`).
absl::StatusOr<JobRunner::Options> RunnerOptions(const JobArgs& args, const LoadedJob& loaded,
                                                 const JobSpec& spec, bool in_experiment,
                                                 const std::string& out) {
  JobRunner::Options options;
  options.spec = spec;
  MINITF_ASSIGN_OR_RETURN(options.simgpu_options,
                          args.simgpu_overrides.empty()
                              ? absl::StatusOr<std::string>(loaded.simgpu_options)
                              : OverrideSimGPUOptions(loaded.simgpu_options,
                                                      args.simgpu_overrides));
  options.platform = loaded.platform;
  if (in_experiment) options.experiment_duration_s = loaded.scenario_duration_s;
  const double bound_s = spec.duration_s > 0 ? spec.duration_s : options.experiment_duration_s;
  if (bound_s > 0) options.setup_timeout = absl::Seconds(std::max(bound_s, 1.0));
  if (!args.trace_file.empty()) options.max_trace_spans = kMaxTraceSpans;
  // Without AntMan's files (a HAMi pod), the job keeps its own in `out`:
  // the control plane then enforces the starting limits, and anyone may
  // read its statistics or change its config.
  options.config_file = FlagOrEnv(args.config_file, "GPU_CONFIG_FILE");
  if (options.config_file.empty()) {
    options.config_file = absl::StrCat(out, "/", spec.name, kConfigSuffix);
  }
  options.status_file = FlagOrEnv(args.status_file, "GPU_STATUS_FILE");
  if (options.status_file.empty()) {
    options.status_file = absl::StrCat(out, "/", spec.name, kStatusSuffix);
  }
  return options;
}

// The job's registration rewritten every second (its heartbeat) from
// set-up to the end, then removed. An empty path: none.
class Heartbeat {
 public:
  Heartbeat(std::string path, std::string name, std::string role) : path_(std::move(path)) {
    if (path_.empty()) return;
    thread_ = std::thread([this, name = std::move(name), role = std::move(role)] {
      while (!stop_.WaitForNotificationWithTimeout(absl::Seconds(1))) {
        (void)WriteFileAtomically(path_, JobRegistrationJson(name, role, absl::Now()));
      }
    });
  }
  ~Heartbeat() {
    if (path_.empty()) return;
    stop_.Notify();
    thread_.join();
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  const std::string path_;
  absl::Notification stop_;
  std::thread thread_;
};

// The coordinator's registration beside a config file named
// <name>.config.json (<name>.job.json) or config.json (job.json, in the
// job's own directory): the job's role and process, removed when the job
// ends (a job killed leaves it, and its process is then found gone). ""
// when the config file has another name.
absl::StatusOr<std::string> Register(const std::string& config_file, const JobSpec& spec) {
  const std::string registration = RegistrationBeside(config_file);
  if (registration.empty()) return registration;
  MINITF_RETURN_IF_ERROR(WriteFileAtomically(
      registration, JobRegistrationJson(spec.name, JobRoleName(spec.role), absl::Now())));
  return registration;
}

// Steps until the job finishes, interrupting it at the first signal; the
// steps so far are rewritten every second, so a job killed outright
// (SIGKILL) leaves what it measured up to then.
void StepUntilFinished(JobRunner& job, const std::string& steps_path) {
  bool interrupted = false;
  absl::Time next_steps_write = absl::Now() + absl::Seconds(1);
  while (!job.finished()) {
    if (!interrupted && InterruptSignal() != 0) {
      interrupted = true;
      job.Interrupt();
    }
    if (absl::Now() >= next_steps_write) {
      next_steps_write = absl::Now() + absl::Seconds(1);
      (void)WriteFileAtomically(steps_path, StepsCsv(job.Records()));
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  job.Join();
}

// The job's spec with the cluster's starting limits and the command's
// duration; outside an experiment it starts at once.
absl::StatusOr<LoadedJob> LoadJobSpec(const JobArgs& args) {
  MINITF_ASSIGN_OR_RETURN(LoadedJob loaded, LoadJob(args.file, args.job));
  JobSpec& spec = loaded.spec;
  MINITF_ASSIGN_OR_RETURN(ClusterLimits cluster, ReadClusterLimits(std::getenv));
  if (cluster.memory_limit_bytes) spec.memory_limit = *cluster.memory_limit_bytes;
  if (cluster.perf_control) spec.perf_control = *cluster.perf_control;
  // In an experiment, the job starts at its start_s after the experiment's.
  if (args.start_file.empty()) spec.start_s = 0;
  if (args.seconds > 0) {
    spec.duration_s = args.seconds;
    spec.steps = 0;
  }
  return loaded;
}

std::string DescribeMemoryLimit(int64_t bytes) {
  if (bytes <= 0) return "the device's";
  if (bytes % (1 << 20) == 0) return absl::StrCat(bytes >> 20, " MiB");
  return absl::StrCat(bytes, " bytes");
}

// One run of `minitf job`, step by step: set up (outputs, registration,
// starting config, runner), wait for the experiment's start when part of
// one, step until the end, write what was measured.
class JobRun {
 public:
  JobRun(const JobArgs& args, LoadedJob loaded)
      : args_(args),
        loaded_(std::move(loaded)),
        spec_(loaded_.spec),
        in_experiment_(!args.start_file.empty()),
        out_(args.out.empty() ? absl::StrCat("runs/jobs/", spec_.name) : args.out),
        summary_path_(absl::StrCat(out_, "/", spec_.name, ".summary.json")),
        steps_path_(absl::StrCat(out_, "/", spec_.name, ".steps.csv")) {}

  // The exit status. Errors before the job could start are returned (exit
  // 1 or 2 by their code, see JobCommand).
  absl::StatusOr<int> Run() {
    MINITF_RETURN_IF_ERROR(MakeDir(out_));
    MINITF_ASSIGN_OR_RETURN(options_, RunnerOptions(args_, loaded_, spec_, in_experiment_, out_));
    MINITF_RETURN_IF_ERROR(Summary(Summarize(spec_, {}, 0, ""), "running", ""));
    MINITF_ASSIGN_OR_RETURN(const std::string registration,
                            Register(options_.config_file, spec_));
    const Heartbeat heartbeat(registration, spec_.name, JobRoleName(spec_.role));
    // A config file nobody has written yet starts as the job does; one a
    // coordinator wrote already is its to keep. Never suspended while the
    // variables are initialised: nobody may be there to release the job.
    const bool starts_suspended = spec_.perf_control == 0;
    const bool write_config = !std::filesystem::exists(options_.config_file);
    if (write_config) {
      GPUConfig setup = StartingConfig(spec_);
      if (starts_suspended) setup.perf_control = 100;
      MINITF_RETURN_IF_ERROR(WriteFileAtomically(options_.config_file, GPUConfigToJson(setup)));
    }
    // Part of an experiment: a parent that dies stops the job too.
    if (in_experiment_) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() == 1) {
        return absl::AbortedError("the experiment that started the job has ended");
      }
    }
    InstallInterruptHandlers(
        "\nminitf job: interrupted: cancelling the step in flight and writing what was "
        "measured (interrupt again to quit at once)\n");
    std::cout << "minitf job: '" << spec_.name << "' (" << JobRoleName(spec_.role) << ", "
              << spec_.model << "), memory limit " << DescribeMemoryLimit(spec_.memory_limit)
              << ", perfControl " << spec_.perf_control << "; config " << options_.config_file
              << "; outputs in " << out_ << "\n"
              << std::flush;
    absl::StatusOr<std::unique_ptr<JobRunner>> job = JobRunner::Create(options_);
    if (!job.ok()) {
      MINITF_RETURN_IF_ERROR(Summary(Summarize(spec_, {}, 0, std::string(job.status().message())),
                                     "failed", InterruptSignalName()));
      std::cerr << "minitf job: " << job.status() << "\n";
      return InterruptSignal() != 0 ? 128 + InterruptSignal() : 1;
    }
    if (write_config && starts_suspended) {
      MINITF_RETURN_IF_ERROR(
          WriteFileAtomically(options_.config_file, GPUConfigToJson(StartingConfig(spec_))));
    }
    capacity_bytes_ = (*job)->device_capacity_bytes();
    absl::Time start = absl::Now();
    if (in_experiment_) {
      MINITF_ASSIGN_OR_RETURN(std::optional<absl::Time> announced, AwaitExperiment(**job));
      if (!announced.has_value()) return 128 + InterruptSignal();
      start = *announced;
    }
    (*job)->Start(start);
    StepUntilFinished(**job, steps_path_);
    return Finish(**job);
  }

 private:
  absl::Status Summary(const JobSummary& s, const std::string& status,
                       const std::string& signal) {
    return WriteFileAtomically(summary_path_,
                               SummaryJson(spec_, s, status, signal, options_.config_file,
                                           options_.status_file, capacity_bytes_));
  }

  // Part of an experiment: says "ready", waits for its start, then takes
  // the config the experiment may have rewritten since set-up (suspended
  // from the first step, say) before the first step. nullopt: interrupted
  // while waiting (the summary says so).
  absl::StatusOr<std::optional<absl::Time>> AwaitExperiment(JobRunner& job) {
    MINITF_RETURN_IF_ERROR(Summary(Summarize(spec_, {}, 0, ""), "ready", ""));
    absl::StatusOr<absl::Time> announced = AwaitStart(args_.start_file);
    if (!announced.ok()) {
      const bool interrupted = InterruptSignal() != 0;
      MINITF_RETURN_IF_ERROR(
          Summary(Summarize(spec_, {}, 0,
                            interrupted ? std::string() : std::string(announced.status().message())),
                  interrupted ? "interrupted" : "failed", InterruptSignalName()));
      if (interrupted) return std::optional<absl::Time>();
      return announced.status();
    }
    absl::StatusOr<std::string> text = ReadRegularFile(options_.config_file, 1 << 20, "a config");
    absl::StatusOr<GPUConfig> config =
        text.ok() ? ParseGPUConfig(*text, options_.config_file) : text.status();
    if (config.ok() && config->perf_control.has_value()) {
      MINITF_RETURN_IF_ERROR(job.AwaitPerfControl(*config->perf_control, kConfigTakeTimeout));
    }
    return std::optional<absl::Time>(*announced);
  }

  // Writes the steps, the trace and the summary; the exit status.
  absl::StatusOr<int> Finish(JobRunner& job) {
    const std::vector<StepRecord> steps = job.Records();
    const absl::Status status = job.status();
    const int signo = InterruptSignal();
    const std::string ended = signo != 0 ? "interrupted" : status.ok() ? "complete" : "failed";
    MINITF_RETURN_IF_ERROR(WriteFileAtomically(steps_path_, StepsCsv(steps)));
    if (!args_.trace_file.empty() && job.trace() != nullptr) {
      MINITF_RETURN_IF_ERROR(WriteFileAtomically(
          args_.trace_file, TraceSpansJson(job.trace()->spans(), job.trace()->dropped_steps())));
    }
    const JobSummary s = Summarize(spec_, steps, 0, std::string(status.message()));
    MINITF_RETURN_IF_ERROR(Summary(s, ended, InterruptSignalName()));
    std::cout << "minitf job: '" << spec_.name << "' " << ended << " after " << s.steps
              << " steps (" << s.steps_per_s << " steps/s); wrote " << out_ << "/{"
              << spec_.name << ".steps.csv," << spec_.name << ".summary.json}\n";
    if (!status.ok()) std::cerr << "minitf job: " << status << "\n";
    if (s.steps == 0) std::cerr << "minitf job: '" << spec_.name << "' completed no step\n";
    if (signo != 0) return 128 + signo;
    return status.ok() ? 0 : 1;
  }

  const JobArgs& args_;
  const LoadedJob loaded_;
  const JobSpec& spec_;
  const bool in_experiment_;
  const std::string out_;
  const std::string summary_path_;
  const std::string steps_path_;
  JobRunner::Options options_;
  int64_t capacity_bytes_ = 0;  // Known once the job is set up.
};

absl::StatusOr<int> RunJob(const JobArgs& args) {
  MINITF_ASSIGN_OR_RETURN(LoadedJob loaded, LoadJobSpec(args));
  return JobRun(args, std::move(loaded)).Run();
}

}  // namespace

int JobCommand(const std::vector<std::string>& args) {
  absl::StatusOr<std::optional<JobArgs>> parsed = ParseJobArgs(args);
  if (!parsed.ok()) {
    std::cerr << "minitf job: " << parsed.status().message() << "\n\n" << kJobUsage;
    return 2;
  }
  if (!parsed->has_value()) {
    std::cout << kJobUsage;
    return 0;
  }
  absl::StatusOr<int> exit_status = RunJob(**parsed);
  if (!exit_status.ok()) {
    std::cerr << "minitf job: " << exit_status.status() << "\n";
    const absl::StatusCode code = exit_status.status().code();
    // The job file, the flags or the environment: the caller's to fix.
    const bool usage = code == absl::StatusCode::kInvalidArgument ||
                       code == absl::StatusCode::kNotFound ||
                       code == absl::StatusCode::kFailedPrecondition;
    return usage ? 2 : 1;
  }
  return *exit_status;
}

}  // namespace minitf::harness
