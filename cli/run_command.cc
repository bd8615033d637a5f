#include "cli/run_command.h"

#include <algorithm>
#include <iostream>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/harness/experiment/cli_args.h"
#include "bench/harness/jobs/run_graph.h"
#include "cli/interrupt.h"
#include "ops/kernels/cpu_gemm.h"
#include "ops/kernels/onednn_conv.h"
#include "platform/cpu_isa.h"
#include "platform/status_macros.h"
#include "platform/tensor_float_32.h"

namespace minitf::harness {

const char kRunUsage[] = R"(usage: minitf run GRAPH.pb|GRAPH.pbtxt [options]

Runs a GraphDef file, as TensorFlow writes it (tf.io.write_graph) or minitf
does: the --init ops once, then the --target ops N times with the feeds,
then the --fetch tensors once more with the same feeds. Prints each fetched
tensor's name, dtype, shape and first values, and the steps' times.

options:
  --init OP             an op to run once first, e.g. a variables' init op
                        (repeatable)
  --feed NAME=FILE.npy  feed tensor NAME (e.g. x:0) from a NumPy file
                        (repeatable)
  --target OP           an op to run each step, e.g. a train op (repeatable)
  --steps N             how many steps (default 1; at most 2147483647)
  --warmup N            run N more steps first, left out of the steps' times
                        (default 0)
  --fetch NAME          a tensor to fetch at the end (repeatable)
  --device CPU|GPU      CPU: no GPU in the session (default). GPU: nodes
                        with a GPU kernel run on the GPU (SimGPU unless
                        MINITF_GPU_PLATFORM or a CUDA device says otherwise)
  --out DIR             write each fetched tensor to DIR/<name>.npy, with
                        '/' and ':' replaced by '_' (probs:0 -> probs_0.npy);
                        DIR is made if missing
  --tf32 on|off         TensorFloat-32 for convolutions and matrix products
                        on a CUDA GPU (default on, as in TensorFlow; off
                        also by NVIDIA_TF32_OVERRIDE=0)
  --optimize on|off     the session's graph passes (default on, as
                        TensorFlow's GraphOptimizer: common subexpressions
                        merged); off runs every node of the graph
  --layout-optimizer on|off
                        with --optimize on, the pass that runs a GPU's
                        NCHW image nodes in NHWC (default on, as
                        TensorFlow's RewriterConfig.layout_optimizer)
  --profile             run the measured steps with step stats and print,
                        per op type and device, the nodes run, their time
                        per step and per node and their share of all op
                        time (as TensorFlow's benchmark_model
                        --show_summary); traced steps run a little slower
  --timeout SECONDS     fail a Run (init, a step, the fetch) that takes
                        longer: DEADLINE_EXCEEDED, naming it (RunOptions'
                        timeout; default none)
  -h, --help            this text

Ctrl-C (or SIGTERM) cancels the step in flight and prints what was measured
before it; a second one quits at once.

exit status: 0 on success, 1 when the graph could not run, 2 for bad
arguments, 128 + the signal when interrupted (130 for Ctrl-C).
)";

namespace {

// `text` with its control characters (a node name may hold any byte) as
// \xNN escapes, so printing it cannot drive the terminal; line breaks stay.
std::string ForTerminal(absl::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f) {
      absl::StrAppendFormat(&out, "\\x%02x", byte);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// What `run` does beyond RunGraph's options.
struct RunCommandOptions {
  RunGraphOptions graph;
  int warmup = 0;  // steps run before the measured ones
  bool tf32 = true;
};

// A count flag's value: a whole number from 0 to 2^31 - 1.
absl::StatusOr<int> Count(const std::string& flag, const std::string& value) {
  int n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " wants a whole number from 0 to 2147483647, got '", value, "'"));
  }
  return n;
}

absl::StatusOr<bool> OnOrOff(const std::string& flag, const std::string& value) {
  if (value != "on" && value != "off") {
    return absl::InvalidArgumentError(absl::StrCat(flag, " wants on or off, got '", value, "'"));
  }
  return value == "on";
}

// Parses run's arguments; std::nullopt after --help.
absl::StatusOr<std::optional<RunCommandOptions>> ParseRun(const std::vector<std::string>& args) {
  RunCommandOptions command;
  RunGraphOptions& out = command.graph;
  bool layout_asked = false;  // --layout-optimizer on, said.
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&] { return FlagValue(args, &i); };
    if (a == "-h" || a == "--help") return std::nullopt;
    if (a == "--init") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      out.init.push_back(v);
    } else if (a == "--feed") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--feed wants NAME=FILE.npy, got '", v, "'"));
      }
      out.feeds.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--target") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      out.targets.push_back(v);
    } else if (a == "--steps") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(out.steps, Count(a, v));
    } else if (a == "--warmup") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(command.warmup, Count(a, v));
    } else if (a == "--tf32") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(command.tf32, OnOrOff(a, v));
    } else if (a == "--optimize") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(out.optimize, OnOrOff(a, v));
    } else if (a == "--layout-optimizer") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      MINITF_ASSIGN_OR_RETURN(out.layout_optimizer, OnOrOff(a, v));
      layout_asked = out.layout_optimizer;
    } else if (a == "--timeout") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      if (!absl::SimpleAtod(v, &out.timeout_seconds) || !(out.timeout_seconds > 0) ||
          out.timeout_seconds > 1e7) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--timeout wants a number of seconds above 0 and at most 1e7, got '", v, "'"));
      }
    } else if (a == "--profile") {
      out.profile = true;
    } else if (a == "--fetch") {
      MINITF_ASSIGN_OR_RETURN(std::string v, value());
      out.fetches.push_back(v);
    } else if (a == "--device") {
      MINITF_ASSIGN_OR_RETURN(out.device, value());
      if (out.device != "CPU" && out.device != "GPU") {
        return absl::InvalidArgumentError(
            absl::StrCat("--device wants CPU or GPU, got '", out.device, "'"));
      }
    } else if (a == "--out") {
      MINITF_ASSIGN_OR_RETURN(out.out_dir, value());
    } else if (!a.empty() && a[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", a, "'"));
    } else if (out.graph.empty()) {
      out.graph = a;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", a, "'"));
    }
  }
  if (out.graph.empty()) return absl::InvalidArgumentError("run wants a GRAPH file");
  if (layout_asked && !out.optimize) {
    return absl::InvalidArgumentError(
        "--layout-optimizer on wants --optimize on (--optimize off runs no graph pass)");
  }
  if (out.targets.empty() && out.fetches.empty() && out.init.empty()) {
    return absl::InvalidArgumentError("run wants something to run: --init, --target or --fetch");
  }
  if (out.steps > std::numeric_limits<int>::max() - command.warmup) {
    return absl::InvalidArgumentError(absl::StrCat("--steps ", out.steps, " and --warmup ",
                                                   command.warmup,
                                                   " make more than 2147483647 steps"));
  }
  return command;
}

// The measured steps' figures: all but the first `warmup`.
std::vector<double> AfterWarmup(const std::vector<double>& steps, int warmup) {
  if (static_cast<size_t>(warmup) >= steps.size()) return {};
  return std::vector<double>(steps.begin() + warmup, steps.end());
}

void PrintResult(const RunGraphOptions& options, int warmup, const RunGraphResult& result) {
  std::cout << absl::StrFormat("minitf run: %s, %d nodes, on %s; created in %.3f s\n",
                               options.graph, result.nodes, options.device,
                               result.create_seconds);
  if (!options.init.empty()) {
    std::cout << absl::StrFormat("init: %.3f s\n", result.init_seconds);
  }
  if (std::vector<double> sorted = AfterWarmup(result.step_seconds, warmup); !sorted.empty()) {
    std::sort(sorted.begin(), sorted.end());
    const double total = std::accumulate(sorted.begin(), sorted.end(), 0.0);
    std::cout << absl::StrFormat(
        "steps: %d in %.3f s%s; per step mean %.3f ms, median %.3f ms, min %.3f ms, max %.3f "
        "ms\n",
        sorted.size(), total,
        warmup > 0 ? absl::StrFormat(" (after %d warm-up steps)", warmup) : std::string(),
        1e3 * total / sorted.size(), 1e3 * sorted[sorted.size() / 2], 1e3 * sorted.front(),
        1e3 * sorted.back());
  }
  if (result.step_minor_faults.size() > static_cast<size_t>(warmup)) {
    std::vector<int64_t> faults(result.step_minor_faults.begin() + warmup,
                                result.step_minor_faults.end());
    std::sort(faults.begin(), faults.end());
    std::cout << absl::StrFormat("minor page faults per step: median %d, min %d, max %d\n",
                                 faults[faults.size() / 2], faults.front(), faults.back());
  }
  if (std::vector<double> busy = AfterWarmup(result.step_gpu_busy_seconds, warmup); !busy.empty()) {
    std::sort(busy.begin(), busy.end());
    std::cout << absl::StrFormat(
        "GPU busy per step (kernel time on the compute streams; on SimGPU, modeled): "
        "median %.3f ms, min %.3f ms, max %.3f ms\n",
        1e3 * busy[busy.size() / 2], 1e3 * busy.front(), 1e3 * busy.back());
  }
  if (options.profile && result.profile.steps() > 0) {
    std::cout << FormatOpProfile(result.profile);
    // Which of OpenBLAS's kernel families the host's matrix products ran
    // (OPENBLAS_CORETYPE forces one).
    std::cout << "host matrix products: " << functor::HostMatrixProductName() << "\n";
    // What convolves float on the host (TF_ENABLE_ONEDNN_OPTS=0 turns oneDNN off).
    std::cout << "host convolutions: " << functor::HostConvolutionName() << "\n";
    // And the vector width of minitf's own loops (MINITF_MAX_CPU_ISA caps it).
    std::cout << "host loops: " << CpuIsaName(ActiveCpuIsa()) << " (the processor has "
              << CpuIsaName(DetectedCpuIsa()) << ")\n";
  }
  for (const auto& [name, t] : result.fetched) {
    std::cout << ForTerminal(DescribeFetch(name, t)) << "\n";
  }
  for (const std::string& path : result.written) std::cout << "wrote " << ForTerminal(path) << "\n";
}

}  // namespace

int RunCommand(const std::vector<std::string>& args) {
  absl::StatusOr<std::optional<RunCommandOptions>> parsed = ParseRun(args);
  if (!parsed.ok()) {
    std::cerr << "minitf run: " << ForTerminal(parsed.status().message()) << "\n\n" << kRunUsage;
    return 2;
  }
  if (!parsed->has_value()) {
    std::cout << kRunUsage;
    return 0;
  }
  RunGraphOptions& options = (*parsed)->graph;
  const int warmup = (*parsed)->warmup;
  options.steps += warmup;
  options.profile_from = warmup;
  EnableTensorFloat32Execution((*parsed)->tf32);
  // Ctrl-C or SIGTERM cancels the Run in flight and prints what was
  // measured; a second one ends the process at once.
  InstallInterruptHandlers(
      "\nminitf run: interrupted: cancelling the step in flight (interrupt again to quit at "
      "once)\n");
  options.interrupted = [] { return InterruptSignal() != 0; };
  absl::StatusOr<RunGraphResult> result = RunGraph(options);
  if (!result.ok()) {
    std::cerr << "minitf run: " << ForTerminal(result.status().ToString()) << "\n";
    return InterruptSignal() != 0 ? 128 + InterruptSignal() : 1;
  }
  PrintResult(options, warmup, *result);
  if (!result->stopped.ok()) {
    std::cerr << "minitf run: stopped by " << InterruptSignalName() << " after "
              << result->step_seconds.size() << " of " << options.steps
              << " steps: " << ForTerminal(result->stopped.ToString()) << "\n";
    return 128 + InterruptSignal();
  }
  return 0;
}

}  // namespace minitf::harness
