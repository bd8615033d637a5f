// `minitf run`: runs a GraphDef file (one TensorFlow wrote, or minitf) in a
// DirectSession. The init ops run once, then the targets `steps` times with
// the feeds, then the fetches once more with the same feeds.
//
//   RunGraphOptions options{.graph = "model.pb", .init = {"init"},
//                           .feeds = {{"x:0", "x.npy"}}, .fetches = {"probs:0"}};
//   MINITF_ASSIGN_OR_RETURN(RunGraphResult result, RunGraph(options));
#ifndef MINITF_BENCH_HARNESS_JOBS_RUN_GRAPH_H_
#define MINITF_BENCH_HARNESS_JOBS_RUN_GRAPH_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/harness/jobs/op_profile.h"
#include "runtime/tensor.h"

namespace minitf::harness {

struct RunGraphOptions {
  // A binary .pb, or a text .pbtxt (by extension).
  std::string graph;
  // Ops run once, first, without feeds (variable initializers).
  std::vector<std::string> init = {};
  // Tensor name -> .npy file, fed to every target step and to the fetches.
  std::vector<std::pair<std::string, std::string>> feeds = {};
  // Ops run `steps` times (a train op).
  std::vector<std::string> targets = {};
  int steps = 1;
  // Tensors fetched once after the steps.
  std::vector<std::string> fetches = {};
  // "CPU": the session has no GPU. "GPU": nodes go to the GPU (SimGPU unless
  // MINITF_GPU_PLATFORM or a CUDA device says otherwise) where it has a
  // kernel, else to the CPU.
  std::string device = "CPU";
  // Where the fetched tensors are written, one .npy each (FetchFileName); ""
  // writes nothing. Made (with its parents) if missing, before anything runs.
  std::string out_dir = {};
  // Each Run's deadline (RunOptions::timeout_in_ms); 0: none.
  double timeout_seconds = 0;
  // Polled while the graph runs; when it says true (Ctrl-C), the session
  // is closed, which cancels the Run in flight, and RunGraph returns what
  // it measured so far with `stopped` set.
  std::function<bool()> interrupted = {};
  // Run the target steps from `profile_from` on with step stats (RunOptions
  // FULL_TRACE) and sum them per op type in RunGraphResult::profile.
  bool profile = false;
  int profile_from = 0;
  // The session's graph passes (ConfigProto graph_options): true runs them
  // as TensorFlow does by default (OptimizerOptions::L1), false none (L0).
  bool optimize = true;
  // With `optimize`, Grappler's layout pass (RewriterConfig::layout_optimizer:
  // NCHW image nodes on a GPU run in NHWC); false turns that pass alone off.
  bool layout_optimizer = true;
};

struct RunGraphResult {
  int64_t nodes = 0;
  double create_seconds = 0;
  double init_seconds = 0;
  // One per target step.
  std::vector<double> step_seconds;
  // One per target step (with --device GPU): the busy time the steps added
  // to the GPUs' engines (on SimGPU, the modeled time of their kernels).
  std::vector<double> step_gpu_busy_seconds;
  // One per target step: the minor page faults the process took during it
  // (getrusage; every thread's, so a step's own unless other work runs).
  // A steady step takes almost none: its buffers come back from the
  // allocators' pools, not from fresh pages.
  std::vector<int64_t> step_minor_faults;
  // With `profile`: the profiled steps' op times.
  OpProfile profile;
  // The fetches, in the order asked.
  std::vector<std::pair<std::string, Tensor>> fetched;
  // The files written under out_dir.
  std::vector<std::string> written;
  // Set when `interrupted` stopped the run: the cancelled Run's error,
  // naming it ("step 3: ..."); the fields above hold what came before.
  absl::Status stopped = absl::OkStatus();
};

// Errors name the graph file, feed file or tensor at fault; Create's error
// lists every op the graph uses that minitf lacks.
absl::StatusOr<RunGraphResult> RunGraph(const RunGraphOptions& options);

// "probs:0" -> "probs_0.npy", "scope/y:1" -> "scope_y_1.npy".
std::string FetchFileName(const std::string& tensor_name);

// "probs:0 float [2,3] = 0.1 0.2 0.7 ..." : the name, dtype, shape and up to
// `max_values` first values.
std::string DescribeFetch(const std::string& name, const Tensor& t, int max_values = 8);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOBS_RUN_GRAPH_H_
