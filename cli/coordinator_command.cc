#include "cli/coordinator_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "session/antman/coordinator.h"
#include "bench/harness/experiment/cli_args.h"
#include "bench/harness/scenario/scenario.h"
#include "cli/interrupt.h"
#include "platform/env.h"
#include "platform/status_macros.h"
#include "stream/platform_manager.h"
#include "stream/stream_executor.h"

namespace minitf::harness {

const char kCoordinatorUsage[] = R"(usage: minitf coordinator DIR [options]

AntMan's local coordinator: watches the jobs whose files are in DIR
(<job>.job.json, <job>.status.json, <job>.config.json: what `minitf job`
writes with GPU_CONFIG_FILE in DIR) and rewrites their configs in closed
loop. Guarantee jobs keep the memory they use plus a margin and run
unrestricted; opportunistic jobs share the rest, and their perfControl is
steered so that every guarantee job keeps --target of its solo step rate,
measured by suspending the opportunistic jobs for a few seconds now and
then. Every decision is a row of the log.

options:
  --policy antman|tgs   antman: perfControl down or up by 10 per settled
                        window; tgs: halved on a violation, x1.5 otherwise
                        (default antman)
  --gpu-memory SIZE     the GPU's memory ("16GiB"; default: GPU 0's, of
                        MINITF_GPU_PLATFORM or the machine's)
  --target FRACTION     guarantee jobs' step rate as a fraction of solo
                        (default 0.97)
  --interval SECONDS    between rounds (default 0.5)
  --log FILE            the decisions, as CSV (default DIR/coordinator.csv;
                        appended to, so a restarted coordinator continues it)
  --seconds N           stop after N seconds (default: at SIGINT or SIGTERM)
  -h, --help            this text

The jobs keep their last config when the coordinator stops or dies; a new
one starts from the configs in DIR.

exit status: 0 when stopped by --seconds, 1 when a config could not be
written, 2 for bad arguments, 128 + the signal when stopped by one.
)";

namespace {

struct CoordinatorArgs {
  CoordinatorOptions options;
  double interval_s = 0.5;
  std::string log;
  double seconds = 0;
};

absl::StatusOr<double> Fraction(const std::string& flag, const std::string& text) {
  double v = 0;
  if (!absl::SimpleAtod(text, &v) || !(v > 0 && v <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " wants a fraction in (0, 1], got '", text, "'"));
  }
  return v;
}

absl::StatusOr<std::optional<CoordinatorArgs>> Parse(const std::vector<std::string>& args) {
  CoordinatorArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&] { return FlagValue(args, &i); };
    if (a == "-h" || a == "--help") return std::nullopt;
    if (a == "--policy") {
      MINITF_ASSIGN_OR_RETURN(out.options.policy, value());
      MINITF_RETURN_IF_ERROR(CheckCoordinatorPolicy(out.options.policy));
    } else if (a == "--gpu-memory") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(out.options.gpu_memory_bytes, ParseByteSize(v));
      if (out.options.gpu_memory_bytes <= 0) {
        return absl::InvalidArgumentError(absl::StrCat("--gpu-memory must be positive, got '", v, "'"));
      }
    } else if (a == "--target") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(out.options.target, Fraction(a, v));
    } else if (a == "--interval") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(out.interval_s, ParseSeconds(a, v));
    } else if (a == "--log") {
      MINITF_ASSIGN_OR_RETURN(out.log, value());
    } else if (a == "--seconds") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(out.seconds, ParseSeconds(a, v));
    } else if (!a.empty() && a[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", a, "'"));
    } else if (out.options.dir.empty()) {
      out.options.dir = a;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", a, "'"));
    }
  }
  if (out.options.dir.empty()) return absl::InvalidArgumentError("coordinator wants a DIR");
  std::error_code error;
  if (!std::filesystem::is_directory(out.options.dir, error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", out.options.dir, "' is not a directory"));
  }
  if (out.log.empty()) out.log = out.options.dir + "/coordinator.csv";
  return out;
}

// GPU 0's memory on the platform jobs would use.
absl::StatusOr<int64_t> DeviceMemory() {
  std::string name = GetEnvOr("MINITF_GPU_PLATFORM", "");
  if (name.empty()) {
    absl::StatusOr<se::Platform*> cuda = se::PlatformManager::PlatformWithName("CUDA");
    name = cuda.ok() && (*cuda)->VisibleDeviceCount() > 0 ? "CUDA" : "SimGPU";
  }
  MINITF_ASSIGN_OR_RETURN(se::Platform * platform, se::PlatformManager::PlatformWithName(name));
  MINITF_ASSIGN_OR_RETURN(se::StreamExecutor * gpu, platform->ExecutorForDevice(0));
  return gpu->GetDeviceDescription().total_memory;
}

absl::StatusOr<int> Run(CoordinatorArgs args) {
  if (args.options.gpu_memory_bytes == 0) {
    MINITF_ASSIGN_OR_RETURN(args.options.gpu_memory_bytes, DeviceMemory());
  }
  const bool fresh = !std::filesystem::exists(args.log);
  std::ofstream log(args.log, std::ios::app);
  if (!log) return absl::UnavailableError(absl::StrCat("cannot write the log '", args.log, "'"));
  if (fresh) log << DecisionCsvHeader() << std::flush;
  InstallInterruptHandlers("\nminitf coordinator: interrupted: stopping; the jobs keep their "
                           "settings (interrupt again to quit at once)\n");
  std::cout << "minitf coordinator: policy " << args.options.policy << ", target "
            << args.options.target << ", GPU memory " << (args.options.gpu_memory_bytes >> 20)
            << " MiB, jobs in " << args.options.dir << ", log " << args.log << "\n"
            << std::flush;
  Coordinator coordinator(args.options);
  const absl::Time end = args.seconds > 0 ? absl::Now() + absl::Seconds(args.seconds)
                                          : absl::InfiniteFuture();
  while (InterruptSignal() == 0 && absl::Now() < end) {
    MINITF_ASSIGN_OR_RETURN(std::vector<Decision> made, coordinator.Tick());
    for (const Decision& d : made) {
      log << DecisionCsvRow(d);
      std::cerr << "minitf coordinator: " << DecisionCsvRow(d);
    }
    log << std::flush;
    absl::SleepFor(absl::Seconds(args.interval_s));
  }
  if (const int signo = InterruptSignal(); signo != 0) return 128 + signo;
  return 0;
}

}  // namespace

int CoordinatorCommand(const std::vector<std::string>& args) {
  absl::StatusOr<std::optional<CoordinatorArgs>> parsed = Parse(args);
  if (!parsed.ok()) {
    std::cerr << "minitf coordinator: " << parsed.status().message() << "\n\n"
              << kCoordinatorUsage;
    return 2;
  }
  if (!parsed->has_value()) {
    std::cout << kCoordinatorUsage;
    return 0;
  }
  absl::StatusOr<int> exit_status = Run(**std::move(parsed));
  if (!exit_status.ok()) {
    std::cerr << "minitf coordinator: " << exit_status.status() << "\n";
    return InterruptSignal() != 0 ? 128 + InterruptSignal() : 1;
  }
  return *exit_status;
}

}  // namespace minitf::harness
