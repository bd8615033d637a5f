#include "cli/colocate_command.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "session/antman/coordinator.h"
#include "bench/harness/experiment/cli_args.h"
#include "bench/harness/experiment/experiment.h"
#include "bench/harness/report/chrome_trace.h"
#include "bench/harness/report/plots.h"
#include "bench/harness/report/report.h"
#include "bench/harness/scenario/scenario.h"
#include "cli/interrupt.h"
#include "platform/status_macros.h"
#include "runtime/gpu_pacing.h"

namespace minitf::harness {

const char kColocateUsage[] = R"(usage: minitf colocate SCENARIO [options]

Runs every job of SCENARIO (a .json scenario or a .csv job list) in this
process, each in its own session over the one shared GPU (or, with
--processes, each as a `minitf job` process), performs the scenario's
timeline by rewriting the jobs' config files, and writes:
  summary.json, table.txt, <job>.steps.csv, device_timeline.csv,
  coordinator.csv (with --coordinator),
  throughput.csv, actions.csv, trace.json (Perfetto / chrome://tracing),
  throughput.png, memory.png, utilisation.png (gnuplot)

options:
  --out DIR              where the outputs go (default: runs/<scenario name>)
  --seconds N            scale the scenario's time axis to last N seconds
                         (0.001 to 1e7)
  --baseline             run each job alone first: slowdowns against solo
  --baseline-seconds N   length of each solo run (default: the job's time in
                         the scenario, at most 15 s)
  --pacing POLICY        antman, precise or sms for every job (default: each job's)
  --stream-priority P    high, default or low for every job's GPU streams
                         (default: each job's; a scenario's default is high
                         for guarantee jobs, low for opportunistic ones)
  --simgpu OPTIONS       SimGPU options replacing the scenario's values of
                         those keys (e.g. preempt_us=0; see docs/SIMGPU.md;
                         share= and timeslice_us= with --processes)
  --coordinator POLICY   antman or tgs: a local coordinator (as `minitf
                         coordinator`) steers the jobs' configs in closed
                         loop instead of the scenario's timeline, and its
                         decisions go to coordinator.csv
  --target FRACTION      the guarantee jobs' step rate the coordinator keeps,
                         as a fraction of their solo rate (default 0.97)
  --no-timeline          neither timeline nor coordinator: the jobs keep their
                         starting settings (no control)
  --processes            each job (and each baseline) a `minitf job` process,
                         the coordinator a `minitf coordinator` process; on
                         SimGPU they share one device across processes (its
                         memory and its engine, in shared memory). A job
                         process that dies is a failed job; the others go on.
                         Its files and log are in DIR/jobs.
  --defer-opportunistic  with --processes, SimGPU timing mode: the
                         opportunistic jobs' kernels wait to join the GPU
                         while a guarantee job has GPU work there (the SimGPU
                         option defer=true), as AntMan's GPU operator manager
                         holds an opportunistic job's operators
  --opportunistic-below-normal
                         with --processes: the opportunistic jobs are MPS
                         clients at priority BELOW_NORMAL
                         (CUDA_MPS_CLIENT_PRIORITY=1; SimGPU: share=mps):
                         the SMs go to the guarantee jobs' kernels first
  --no-trace             do not record trace.json
  --no-plots             do not run gnuplot
  -h, --help             this text

Each job's set-up must finish within the experiment's length, and a step
still running at its job's end is cancelled and not counted.

Ctrl-C (or SIGTERM) stops the jobs at their next step and writes every
output for the time run, marked interrupted; a second one quits at once.
summary.json says "running" until the run's outputs are written.

exit status: 0 when every job ran to its end, 1 when a job failed (listed
on stderr) or the experiment could not run, 2 for bad arguments, 128 + the
signal when interrupted.
)";

namespace {

struct ColocateArgs {
  std::string scenario;
  std::string out;
  ExperimentOptions options;
  bool plots = true;
};

// A time flag's value: finite, positive and bounded (ParseSeconds), so the
// run ends and its times convert to absl::Duration without overflow.
absl::StatusOr<double> Seconds(const std::string& flag, const std::string& value) {
  return ParseSeconds(flag, value);
}

// The flags that are valid only together, or not together.
absl::Status CheckColocateCombinations(const ExperimentOptions& options) {
  // With --processes the run shares its device between the processes
  // (shared=NAME), so the keys of a shared device (share=, timeslice_us=)
  // are valid then, and only then. The scenario's own keys are not read
  // yet: timing mode stands for them here (share=mps needs it), and the run
  // checks the flags again with the scenario's device before it starts.
  MINITF_RETURN_IF_ERROR(
      OverrideSimGPUOptions(options.processes ? "mode=timing,shared=colocate" : "",
                            options.simgpu_overrides)
          .status());
  if (options.defer_opportunistic && !options.processes) {
    return absl::InvalidArgumentError(
        "--defer-opportunistic needs --processes (jobs as threads: give the opportunistic "
        "jobs' streams a low priority instead, --stream-priority)");
  }
  if (options.below_normal_opportunistic && !options.processes) {
    return absl::InvalidArgumentError(
        "--opportunistic-below-normal needs --processes (an MPS client priority is a "
        "process's; jobs as threads: --stream-priority)");
  }
  if (options.no_timeline && !options.coordinator.empty()) {
    return absl::InvalidArgumentError("--no-timeline and --coordinator exclude each other");
  }
  return absl::OkStatus();
}

// Parses colocate's arguments; std::nullopt after --help.
absl::StatusOr<std::optional<ColocateArgs>> ParseColocate(const std::vector<std::string>& args) {
  ColocateArgs out;
  out.options.baseline = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&] { return FlagValue(args, &i); };
    if (a == "-h" || a == "--help") return std::nullopt;
    if (a == "--out") {
      MINITF_ASSIGN_OR_RETURN(out.out, value());
    } else if (a == "--seconds") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(out.options.seconds, Seconds(a, v));
    } else if (a == "--baseline") {
      out.options.baseline = true;
    } else if (a == "--baseline-seconds") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(out.options.baseline_seconds, Seconds(a, v));
    } else if (a == "--pacing") {
      MINITF_ASSIGN_OR_RETURN(out.options.pacing, value());
      if (!ParsePacingPolicy(out.options.pacing).ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--pacing wants antman, precise or sms, got '", out.options.pacing, "'"));
      }
    } else if (a == "--stream-priority") {
      MINITF_ASSIGN_OR_RETURN(out.options.stream_priority, value());
      if (!se::ParseStreamPriority(out.options.stream_priority).ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--stream-priority wants high, default or low, got '", out.options.stream_priority,
            "'"));
      }
    } else if (a == "--simgpu") {
      MINITF_ASSIGN_OR_RETURN(out.options.simgpu_overrides, value());
    } else if (a == "--coordinator") {
      MINITF_ASSIGN_OR_RETURN(out.options.coordinator, value());
      MINITF_RETURN_IF_ERROR(CheckCoordinatorPolicy(out.options.coordinator));
    } else if (a == "--target") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      double target = 0;
      if (!absl::SimpleAtod(v, &target) || !(target > 0 && target <= 1)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--target wants a fraction in (0, 1], got '", v, "'"));
      }
      out.options.coordinator_target = target;
    } else if (a == "--no-timeline") {
      out.options.no_timeline = true;
    } else if (a == "--processes") {
      out.options.processes = true;
    } else if (a == "--defer-opportunistic") {
      out.options.defer_opportunistic = true;
    } else if (a == "--opportunistic-below-normal") {
      out.options.below_normal_opportunistic = true;
    } else if (a == "--no-trace") {
      out.options.max_trace_spans = 0;
    } else if (a == "--no-plots") {
      out.plots = false;
    } else if (!a.empty() && a[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", a, "'"));
    } else if (out.scenario.empty()) {
      out.scenario = a;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", a, "'"));
    }
  }
  if (out.scenario.empty()) return absl::InvalidArgumentError("colocate wants a SCENARIO file");
  MINITF_RETURN_IF_ERROR(CheckColocateCombinations(out.options));
  return out;
}

// What a finished run prints last, and its exit status: 128 + the signal
// when interrupted, 1 when a job failed, else 0.
int Conclude(const ExperimentResult& result) {
  std::vector<std::string> failures;
  for (const JobResult& job : result.jobs) {
    if (!job.status.ok()) failures.push_back(absl::StrCat(job.spec.name, ": ", job.status.message()));
  }
  for (const JobResult& job : result.jobs) {
    if (job.status.ok() && job.steps.empty()) {
      std::cerr << "minitf colocate: job '" << job.spec.name << "' completed no step\n";
    }
  }
  if (!failures.empty()) {
    std::cerr << "minitf colocate: " << failures.size() << " of " << result.jobs.size()
              << " jobs failed:\n";
    for (const std::string& failure : failures) std::cerr << "  " << failure << "\n";
  }
  if (const int signo = InterruptSignal(); signo != 0) {
    std::cerr << "minitf colocate: interrupted by " << result.interrupted_by << " at "
              << result.interrupted_at_s << " s; the outputs cover the time run\n";
    return 128 + signo;
  }
  return failures.empty() ? 0 : 1;
}

// Runs the experiment and writes its outputs; the exit status (Conclude).
absl::StatusOr<int> Colocate(ColocateArgs args) {
  MINITF_ASSIGN_OR_RETURN(Scenario scenario, LoadScenario(args.scenario));
  for (const std::string& warning : scenario.warnings) {
    std::cerr << "minitf colocate: warning: " << warning << "\n";
  }
  if (args.out.empty()) args.out = absl::StrCat("runs/", scenario.name);
  args.options.out_dir = args.out;
  args.options.progress = &std::cerr;
  args.options.progress_is_tty = isatty(STDERR_FILENO) != 0;
  InstallInterruptHandlers();
  args.options.interruption = [] { return InterruptSignalName(); };
  MINITF_RETURN_IF_ERROR(BeginReport(args.out, scenario.name));
  std::cout << "minitf colocate: scenario '" << scenario.name << "' from " << args.scenario
            << ", " << scenario.jobs.size() << " jobs, "
            << (args.options.seconds > 0 ? args.options.seconds : scenario.duration_s)
            << " s, outputs in " << args.out << "\n"
            << std::flush;
  absl::StatusOr<ExperimentResult> result = RunExperiment(scenario, args.options);
  if (!result.ok()) {
    absl::Status abandoned = AbandonReport(args.out, scenario.name, result.status());
    if (!abandoned.ok()) std::cerr << "minitf colocate: " << abandoned << "\n";
    return result.status();
  }
  MINITF_RETURN_IF_ERROR(WriteReport(*result, args.out));
  std::vector<std::string> written = {"summary.json", "table.txt", "*.csv"};
  if (args.options.max_trace_spans > 0) {
    MINITF_RETURN_IF_ERROR(WriteChromeTrace(*result, args.out + "/trace.json"));
    written.push_back("trace.json");
  }
  std::cout << "\n" << FormatTable(*result) << "\n";
  if (args.plots) {
    absl::Status plotted = WritePlots(*result, args.out);
    if (plotted.ok()) {
      written.push_back("*.png");
    } else {
      std::cerr << "plots: " << plotted.message() << "\n";
    }
  }
  std::cout << "wrote " << args.out << "/{" << absl::StrJoin(written, ",") << "}\n"
            << std::flush;
  return Conclude(*result);
}

}  // namespace

int ColocateCommand(const std::vector<std::string>& args) {
  absl::StatusOr<std::optional<ColocateArgs>> parsed = ParseColocate(args);
  if (!parsed.ok()) {
    std::cerr << "minitf colocate: " << parsed.status().message() << "\n\n" << kColocateUsage;
    return 2;
  }
  if (!parsed->has_value()) {
    std::cout << kColocateUsage;
    return 0;
  }
  absl::StatusOr<int> exit_status = Colocate(**std::move(parsed));
  if (!exit_status.ok()) {
    std::cerr << "minitf colocate: " << exit_status.status() << "\n";
    return InterruptSignal() != 0 ? 128 + InterruptSignal() : 1;
  }
  return *exit_status;
}

}  // namespace minitf::harness
