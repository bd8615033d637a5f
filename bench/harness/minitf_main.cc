// minitf: the command-line front end. `minitf colocate` runs a co-location
// experiment (docs/EXPERIMENTS.md); `minitf --help` lists the commands.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/harness/chrome_trace.h"
#include "bench/harness/experiment.h"
#include "bench/harness/plots.h"
#include "bench/harness/report.h"
#include "bench/harness/scenario.h"
#include "platform/status_macros.h"

namespace minitf::harness {
namespace {

constexpr char kUsage[] = R"(minitf: TensorFlow's graph runtime, small, with AntMan-style GPU sharing.

usage: minitf <command> [arguments]

commands:
  colocate SCENARIO   run a co-location experiment: the scenario's jobs share
                      one GPU while its timeline changes their memory limits
                      and GPU shares (docs/EXPERIMENTS.md)
  help [COMMAND]      this text, or one command's

Scenarios: bench/scenarios/*.json (or a CSV job list). The GPU is SimGPU
unless the scenario or a CUDA device says otherwise.
)";

constexpr char kColocateUsage[] = R"(usage: minitf colocate SCENARIO [options]

Runs every job of SCENARIO (a .json scenario or a .csv job list) in this
process, each in its own session over the one shared GPU, performs the
scenario's timeline by rewriting the jobs' config files, and writes:
  summary.json, table.txt, <job>.steps.csv, device_timeline.csv,
  throughput.csv, actions.csv, trace.json (Perfetto / chrome://tracing),
  throughput.png, memory.png, utilisation.png (gnuplot)

options:
  --out DIR              where the outputs go (default: runs/<scenario name>)
  --seconds N            scale the scenario's time axis to last N seconds
  --baseline             run each job alone first: slowdowns against solo
  --baseline-seconds N   length of each solo run (default: the job's time in
                         the scenario, at most 15 s)
  --pacing POLICY        antman or precise for every job (default: each job's)
  --stream-priority P    high, default or low for every job's GPU streams
                         (default: each job's; a scenario's default is high
                         for guarantee jobs, low for opportunistic ones)
  --simgpu OPTIONS       SimGPU options replacing the scenario's values of
                         those keys (e.g. preempt_us=0; see docs/SIMGPU.md)
  --no-trace             do not record trace.json
  --no-plots             do not run gnuplot
  -h, --help             this text
)";

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

// Parses colocate's arguments; std::nullopt after --help.
absl::StatusOr<std::optional<ColocateArgs>> ParseColocate(const std::vector<std::string>& args) {
  ColocateArgs out;
  out.options.baseline = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> absl::StatusOr<std::string> {
      if (i + 1 >= args.size()) return absl::InvalidArgumentError(absl::StrCat(a, " wants a value"));
      return args[++i];
    };
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
      if (out.options.pacing != "antman" && out.options.pacing != "precise") {
        return absl::InvalidArgumentError(absl::StrCat(
            "--pacing wants antman or precise, got '", out.options.pacing, "'"));
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
      MINITF_RETURN_IF_ERROR(OverrideSimGPUOptions("", out.options.simgpu_overrides).status());
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
  return out;
}

absl::Status Colocate(ColocateArgs args) {
  MINITF_ASSIGN_OR_RETURN(Scenario scenario, LoadScenario(args.scenario));
  if (args.out.empty()) args.out = absl::StrCat("runs/", scenario.name);
  args.options.out_dir = args.out;
  args.options.progress = &std::cerr;
  args.options.progress_is_tty = isatty(STDERR_FILENO) != 0;
  std::cout << "minitf colocate: scenario '" << scenario.name << "' from " << args.scenario
            << ", " << scenario.jobs.size() << " jobs, "
            << (args.options.seconds > 0 ? args.options.seconds : scenario.duration_s)
            << " s, outputs in " << args.out << "\n"
            << std::flush;
  MINITF_ASSIGN_OR_RETURN(ExperimentResult result, RunExperiment(scenario, args.options));
  MINITF_RETURN_IF_ERROR(WriteReport(result, args.out));
  if (args.options.max_trace_spans > 0) {
    MINITF_RETURN_IF_ERROR(WriteChromeTrace(result, args.out + "/trace.json"));
  }
  std::cout << "\n" << FormatTable(result) << "\n";
  if (args.plots) {
    absl::Status plotted = WritePlots(result, args.out);
    if (!plotted.ok()) std::cerr << "plots: " << plotted.message() << "\n";
  }
  std::cout << "wrote " << args.out << "/{summary.json,table.txt,trace.json,*.csv,*.png}\n";
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  // The progress line says what the harness does; the jobs' own logs (each
  // config change, each limit in force) are for MINITF_LOG_LEVEL=info.
  logging::SetDefaultLogLevel("warn");
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" ||
      (args[0] == "help" && args.size() == 1)) {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "help") {
    if (args[1] == "colocate") {
      std::cout << kColocateUsage;
      return 0;
    }
    std::cerr << "minitf: no command '" << args[1] << "'\n\n" << kUsage;
    return 2;
  }
  if (args[0] == "colocate") {
    absl::StatusOr<std::optional<ColocateArgs>> parsed =
        ParseColocate(std::vector<std::string>(args.begin() + 1, args.end()));
    if (!parsed.ok()) {
      std::cerr << "minitf colocate: " << parsed.status().message() << "\n\n" << kColocateUsage;
      return 2;
    }
    if (!parsed->has_value()) {
      std::cout << kColocateUsage;
      return 0;
    }
    absl::Status s = Colocate(**std::move(parsed));
    if (!s.ok()) {
      std::cerr << "minitf colocate: " << s << "\n";
      return 1;
    }
    return 0;
  }
  std::cerr << "minitf: no command '" << args[0] << "'\n\n" << kUsage;
  return 2;
}

}  // namespace
}  // namespace minitf::harness

int main(int argc, char** argv) { return minitf::harness::Main(argc, argv); }
