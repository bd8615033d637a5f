#include "bench/harness/jobs/run_graph.h"

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "device/device.h"
#include "device/gpu/gpu_device.h"
#include "platform/status_macros.h"
#include "runtime/graph_def_io.h"
#include "runtime/npy_io.h"
#include "session/session.h"

namespace minitf::harness {
namespace {

// The minor page faults this process has taken so far.
int64_t MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

absl::Status InContext(const absl::Status& s, absl::string_view context) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(context, ": ", s.message()));
}

// Makes --out's directory (and its parents) unless it is one already; an
// error names it and says why, before anything runs.
absl::Status PrepareOutDir(const std::string& dir) {
  std::error_code error;
  if (std::filesystem::exists(dir, error)) {
    if (std::filesystem::is_directory(dir, error)) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("--out '", dir, "' is a file, not a directory"));
  }
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::InvalidArgumentError(
        absl::StrCat("--out '", dir, "': cannot make the directory: ", error.message()));
  }
  return absl::OkStatus();
}

}  // namespace

std::string FetchFileName(const std::string& tensor_name) {
  return absl::StrReplaceAll(tensor_name, {{"/", "_"}, {":", "_"}}) + ".npy";
}

std::string DescribeFetch(const std::string& name, const Tensor& t, int max_values) {
  return absl::StrCat(name, " ", DataTypeString(t.dtype()), " ", t.shape().DebugString(),
                      " = ", t.SummarizeValue(max_values));
}

namespace {

absl::Status CheckOptions(const RunGraphOptions& options) {
  if (options.device != "CPU" && options.device != "GPU") {
    return absl::InvalidArgumentError(
        absl::StrCat("--device wants CPU or GPU, got '", options.device, "'"));
  }
  if (options.steps < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--steps must be >= 0, got ", options.steps));
  }
  if (!options.out_dir.empty()) MINITF_RETURN_IF_ERROR(PrepareOutDir(options.out_dir));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::pair<std::string, Tensor>>> ReadFeeds(
    const RunGraphOptions& options) {
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [name, file] : options.feeds) {
    absl::StatusOr<Tensor> t = ReadNpyFile(file);
    if (!t.ok()) return InContext(t.status(), absl::StrCat("feed ", name));
    feeds.emplace_back(name, *std::move(t));
  }
  return feeds;
}

// A session on the device asked for: the CPU alone, or with a GPU (soft
// placement for the ops it has no kernel for); an error without one.
absl::StatusOr<std::unique_ptr<Session>> OpenSession(const RunGraphOptions& options) {
  SessionOptions session_options;
  if (!options.optimize) session_options.config.graph_options = GraphOptions::Unoptimized();
  if (!options.layout_optimizer) {
    session_options.config.graph_options.rewrite_options.layout_optimizer = RewriterConfig::OFF;
  }
  if (options.device == "CPU") {
    session_options.config.device_count["GPU"] = 0;
  } else {
    session_options.config.allow_soft_placement = true;
  }
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(session_options));
  if (options.device == "GPU") {
    bool has_gpu = false;
    for (const Device* d : session->ListDevices()) has_gpu = has_gpu || d->device_type() == "GPU";
    if (!has_gpu) return absl::FailedPreconditionError("--device GPU: the session has no GPU");
  }
  return session;
}

// Ctrl-C: while it lives, a thread closes the session once `interrupted`
// says so, which cancels the Run in flight.
class InterruptWatcher {
 public:
  InterruptWatcher(const std::function<bool()>& interrupted, Session* session) {
    if (!interrupted) return;
    thread_ = std::thread([this, &interrupted, session] {
      while (!finished_.load()) {
        if (interrupted()) {
          (void)session->Close();
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  ~InterruptWatcher() {
    finished_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

 private:
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

// The kernel time of a session's compute streams so far, as the
// co-location harness measures it: CUDA measures it per stream (with
// events around each launch), SimGPU per stream of its engine.
class GpuBusyClock {
 public:
  explicit GpuBusyClock(const Session& session) {
    for (const Device* d : session.ListDevices()) {
      if (const auto* gpu = dynamic_cast<const GPUDevice*>(d); gpu != nullptr) gpus_.push_back(gpu);
    }
  }
  bool empty() const { return gpus_.empty(); }
  absl::Duration Busy() const {
    absl::Duration busy;
    for (const GPUDevice* gpu : gpus_) busy += gpu->ComputeBusyTime();
    return busy;
  }

 private:
  std::vector<const GPUDevice*> gpus_;
};

// The target steps, each timed, its faults counted, profiled from
// profile_from on.
absl::Status RunSteps(const RunGraphOptions& options, const RunOptions& run_options,
                      const std::vector<std::pair<std::string, Tensor>>& feeds, Session& session,
                      RunGraphResult& result) {
  const GpuBusyClock gpu(session);
  std::vector<Tensor> outputs;
  for (int step = 0; step < options.steps; ++step) {
    const bool profiled = options.profile && step >= options.profile_from;
    RunOptions step_options = run_options;
    if (profiled) step_options.trace_level = RunOptions::FULL_TRACE;
    RunMetadata metadata;
    const int64_t faults_before = MinorFaults();
    const auto start = std::chrono::steady_clock::now();
    const absl::Duration busy_before = gpu.Busy();
    MINITF_RETURN_IF_ERROR(InContext(session.Run(step_options, feeds, {}, options.targets,
                                                 &outputs, profiled ? &metadata : nullptr),
                                     absl::StrCat("step ", step)));
    result.step_seconds.push_back(SecondsSince(start));
    result.step_minor_faults.push_back(MinorFaults() - faults_before);
    if (profiled) result.profile.AddStep(metadata.step_stats, result.step_seconds.back());
    if (!gpu.empty()) {
      result.step_gpu_busy_seconds.push_back(absl::ToDoubleSeconds(gpu.Busy() - busy_before));
    }
  }
  return absl::OkStatus();
}

// Init, the steps and the fetches, in that order.
absl::Status RunInitStepsAndFetches(const RunGraphOptions& options,
                                    const std::vector<std::pair<std::string, Tensor>>& feeds,
                                    Session& session, RunGraphResult& result) {
  RunOptions run_options;
  run_options.timeout_in_ms = static_cast<int64_t>(std::ceil(options.timeout_seconds * 1000.0));
  std::vector<Tensor> outputs;
  if (!options.init.empty()) {
    const auto start = std::chrono::steady_clock::now();
    MINITF_RETURN_IF_ERROR(InContext(
        session.Run(run_options, {}, {}, options.init, &outputs, nullptr), "init"));
    result.init_seconds = SecondsSince(start);
  }
  if (!options.targets.empty()) {
    MINITF_RETURN_IF_ERROR(RunSteps(options, run_options, feeds, session, result));
  }
  if (options.fetches.empty()) return absl::OkStatus();
  MINITF_RETURN_IF_ERROR(InContext(
      session.Run(run_options, feeds, options.fetches, {}, &outputs, nullptr), "fetch"));
  for (size_t i = 0; i < options.fetches.size(); ++i) {
    result.fetched.emplace_back(options.fetches[i], outputs[i]);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RunGraphResult> RunGraph(const RunGraphOptions& options) {
  MINITF_RETURN_IF_ERROR(CheckOptions(options));
  MINITF_ASSIGN_OR_RETURN(GraphDef graph, ReadGraphDefFile(options.graph));
  MINITF_ASSIGN_OR_RETURN(auto feeds, ReadFeeds(options));
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, OpenSession(options));
  RunGraphResult result;
  result.nodes = static_cast<int64_t>(graph.node.size());
  const auto start = std::chrono::steady_clock::now();
  MINITF_RETURN_IF_ERROR(InContext(session->Create(graph), options.graph));
  result.create_seconds = SecondsSince(start);
  {
    const InterruptWatcher watcher(options.interrupted, session.get());
    const absl::Status s = RunInitStepsAndFetches(options, feeds, *session, result);
    if (!s.ok()) {
      // Once interrupted: what was measured, with the cancelled Run's error.
      if (!options.interrupted || !options.interrupted()) return s;
      result.stopped = s;
      return result;
    }
  }
  if (!options.out_dir.empty()) {
    for (const auto& [name, t] : result.fetched) {
      const std::string path = absl::StrCat(options.out_dir, "/", FetchFileName(name));
      MINITF_RETURN_IF_ERROR(WriteNpyFile(path, t));
      result.written.push_back(path);
    }
  }
  return result;
}

}  // namespace minitf::harness
