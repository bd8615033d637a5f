// minitf: the command-line front end, one file per command beside it
// (colocate, run, job, coordinator); `minitf --help` lists them.
#include <iostream>
#include <string>
#include <vector>

#include "cli/colocate_command.h"
#include "cli/coordinator_command.h"
#include "cli/job_command.h"
#include "cli/run_command.h"
#include "platform/logging.h"

namespace minitf::harness {
namespace {

constexpr char kUsage[] = R"(minitf: TensorFlow's graph runtime, small, with AntMan-style GPU sharing.

usage: minitf <command> [arguments]

commands:
  colocate SCENARIO   run a co-location experiment: the scenario's jobs share
                      one GPU while its timeline changes their memory limits
                      and GPU shares (docs/EXPERIMENTS.md)
  run GRAPH           run a GraphDef file (.pb or .pbtxt, e.g. one TensorFlow
                      wrote): init ops, train steps, fetches to .npy files
  job JOB.json        run one training job as this process, steered by
                      AntMan's config file, started with a cluster's limits
                      (HAMi's environment)
  coordinator DIR     AntMan's local coordinator: steer the jobs whose files
                      are in DIR in closed loop
  help [COMMAND]      this text, or one command's

Scenarios: bench/scenarios/*.json (or a CSV job list). The GPU is SimGPU
unless the scenario or a CUDA device says otherwise.
)";

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
    if (args[1] == "run") {
      std::cout << kRunUsage;
      return 0;
    }
    if (args[1] == "job") {
      std::cout << kJobUsage;
      return 0;
    }
    if (args[1] == "coordinator") {
      std::cout << kCoordinatorUsage;
      return 0;
    }
    std::cerr << "minitf: no command '" << args[1] << "'\n\n" << kUsage;
    return 2;
  }
  if (args[0] == "colocate") {
    return ColocateCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  if (args[0] == "run") return RunCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  if (args[0] == "job") return JobCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  if (args[0] == "coordinator") {
    return CoordinatorCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  std::cerr << "minitf: no command '" << args[0] << "'\n\n" << kUsage;
  return 2;
}

}  // namespace
}  // namespace minitf::harness

int main(int argc, char** argv) { return minitf::harness::Main(argc, argv); }
