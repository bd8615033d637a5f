// GPUStatsFile: the JSON file through which a job reports its GPU usage to
// an external scheduler after its training steps (AntMan's GPU statistics).
//
//   GPUStatsOptions options;
//   options.path = "/run/job/gpu_stats.json";
//   GPUStatsFile stats(std::move(options));
//   ...after each step:
//   absl::Status s = stats.RecordStep(graph_id, step_time, samples);
//   if (!s.ok()) LOG(WARNING, "{}", s);      // never stops training
//
// The file accumulates a *window*: every step recorded since the last
// successful write. One file describes one window.
//
// Format. AntMan's file (tensorflow/contrib/resource_management/
// gpu_statistics.cc, GPUStatistics::dumpGPUStatistics) has three top-level
// keys and nothing else:
//
//   {"Durations": {"graph_1": 12345, "graph_2": 800},
//    "gpuUsageInfo": {"50:00.0": {
//        "deviceMemUsedMax": 3221225472, "deviceMemUsedMin": 1073741824,
//        "deviceMemPoolSize": 4294967296, "deviceMemStable": 3221225472,
//        "hostMemUsedMax": 0, "hostMemUsedMin": 0, "hostMemPoolSize": 0,
//        "swapReason": "", "deviceMemUsedNvidia": -1}},
//    "miniBatchDuration": 12345}
//
// minitf writes every one of those keys, at the same place and with the
// same JSON type (integers, swapReason a string), and adds keys of its own
// beside them, never in place of one:
//
//   {"timestamp": "2026-11-23T07:10:00.123Z",
//    "timestampUs": 1795417800123000,
//    "miniBatchDuration": 12345,
//    "Durations": {"graph_1": 12345, "graph_2": 800},
//    "gpuUsageInfo": {"50:00.0": {
//        "deviceMemUsedMax": 3221225472, "deviceMemUsedMin": 1073741824,
//        "deviceMemPoolSize": 4294967296, "deviceMemStable": 3221225472,
//        "hostMemUsedMax": 0, "hostMemUsedMin": 0, "hostMemPoolSize": 0,
//        "swapReason": "", "deviceMemUsedNvidia": 4294967296,
//        "device": "GPU:0", "pciBusId": "0000:50:00.0",
//        "deviceMemLimit": 8589934592, "deviceMemPeakStable": true,
//        "gpuShare": 0.42, "gpuBusyUs": 1250000, "perfControl": 50}}}
//
// Sizes are integers in bytes, durations integers in microseconds.
// AntMan's keys:
//   miniBatchDuration  the duration of the latest step recorded, whatever its
//                      graph (the step that led to this write, or the last
//                      one before a Flush).
//   Durations          the latest step duration of every graph id the file
//                      has seen, keyed "graph_<id>" (id in decimal). Graphs
//                      persist across windows: not limited to the window.
//   gpuUsageInfo       one object per GPU of the window's samples, keyed as
//                      AntMan keys it: the PCI bus id in lower case without
//                      its domain ("0000:50:00.0" -> "50:00.0"); the device
//                      name ("GPU:0") when the bus id is empty.
//     deviceMemUsedMax   the highest device peak of any step in the window.
//     deviceMemUsedMin   the lowest device bytes in use at a step boundary.
//     deviceMemPoolSize  bytes the device BFC had reserved at the latest step.
//     deviceMemStable    bytes of the device BFC's regions that held at least
//                        one allocated chunk at the latest step (AntMan's
//                        GetMemPoolStats "in use" size): the part of the
//                        pool that a shrink could not give back.
//     hostMemUsedMax     as deviceMemUsedMax, for the bytes VMem spilled to host.
//     hostMemUsedMin     as deviceMemUsedMin, for host.
//     hostMemPoolSize    pinned host pool reserved at the latest step.
//     swapReason         why memory spilled at the latest step: "", "OOM",
//                        "FRAGMENT".
//     deviceMemUsedNvidia  the device memory the job holds as nvidia-smi
//                        would count it. AntMan always wrote -1 (unmeasured).
//                        minitf writes deviceMemPoolSize: the BFC pool is
//                        what the job obtained from the driver, so it is the
//                        job's share of what NVML reports, less the CUDA
//                        context, which minitf does not measure (and which
//                        SimGPU does not have).
// minitf's additions:
//   timestamp          when the file was written: UTC, ISO 8601, milliseconds.
//   timestampUs        the same instant in microseconds since the Unix epoch.
//   per GPU:
//     device             the minitf device name, "GPU:0".
//     pciBusId           the bus id as the device reports it, domain included
//                        (the form GPU_CONFIG_FILE's gpuConfigInfo takes).
//     deviceMemLimit     the memory limit in force at the latest step.
//     deviceMemPeakStable  the device peak has been the same for at least
//                        stable_steps consecutive steps (the latest included).
//     gpuShare           the job's GPU busy share over the latest step, 0..1
//                        (a JSON number with a fraction).
//     gpuBusyUs          the job's GPU busy time since it began, so a reader
//                        can measure the device's use over any window.
//     perfControl        the perfControl in force at the latest step.
//
// Same keys, different figures: AntMan's Durations were the mean of each
// graph's last few steps and its miniBatchDuration the largest of them;
// its deviceMemUsedMin was the bytes in use at the latest sample, and its
// hostMemPoolSize the host allocator's limit. With no GPU AntMan wrote
// "gpuUsageInfo": null; minitf writes {}.
//
// Write policy. A recorded step marks the file *pending* when
//   - nothing has been written yet, or
//   - for some GPU, a written figure other than gpuShare and gpuBusyUs differs from the
//     last written file (max/min, pool sizes, deviceMemStable, limit,
//     swapReason, perfControl, deviceMemPeakStable -- so a job that settles
//     is reported as stable), or a GPU appears or disappears, or
//   - the step's duration differs from the last written duration of the
//     same graph by more than duration_change_threshold of it (a graph not
//     yet written counts as a change).
// A pending file is written at the first step at which min_interval has
// passed since the last write attempt; a change that arrives sooner stays
// pending until then. A successful write starts a new window and clears
// pending; a failed one keeps both, and the next attempt waits for the
// interval too, so a broken path costs one attempt per interval.
//
// The write is atomic: the content goes to "<path>.tmp.<pid>" in the same
// directory, is fsynced, and is renamed over `path`, so a reader sees the
// previous complete file or the new complete file, never a partial one. On
// failure the temporary file is removed and `path` keeps its previous
// content. One GPUStatsFile per path: two writing the same path in one
// process would share the temporary file.
#ifndef MINITF_SESSION_ANTMAN_GPU_STATS_FILE_H_
#define MINITF_SESSION_ANTMAN_GPU_STATS_FILE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "platform/mutex.h"

namespace minitf {

// One GPU's memory figures, sampled at a step boundary.
struct GPUMemorySample {
  std::string device;  // "GPU:0"
  std::string bus_id;  // "0000:50:00.0"; identifies the GPU in the file
  // Device figures are the BFC's chunk bytes (rounded, as TensorFlow's
  // bytes_in_use), host figures VMem's, counted the same way.
  int64_t device_bytes_in_use = 0;  // now, at the step boundary
  int64_t device_peak_bytes = 0;    // the peak during the step
  int64_t device_pool_bytes = 0;    // bytes the device BFC has reserved
  int64_t device_live_region_bytes = 0;  // of those, in regions holding a live chunk
  int64_t device_limit_bytes = 0;   // the memory limit in force
  int64_t host_bytes_in_use = 0;    // VMem: bytes spilled to host now
  int64_t host_peak_bytes = 0;      // the host peak during the step
  int64_t host_pool_bytes = 0;      // pinned host pool reserved
  std::string swap_reason;          // "", "OOM", "FRAGMENT"
  double gpu_share = 0;             // the job's GPU busy share over the step, 0..1
  int64_t gpu_busy_us = 0;          // the job's GPU busy time since it began
  int perf_control = 100;           // in force
};

struct GPUStatsOptions {
  // The file to write. REQUIRES: non-empty.
  std::string path;
  // At most one write attempt per interval; a change that arrives sooner is
  // written at the first step after it.
  absl::Duration min_interval = absl::Seconds(1);
  // A graph's step time moving by more than this fraction of its last
  // written value makes the file pending.
  double duration_change_threshold = 0.1;
  // A file no change has made pending is still rewritten at the first step
  // once this long has passed since the last write (a new timestamp and
  // stepCount), so a reader can follow the job's progress. Infinite: only
  // changes are written, as AntMan does.
  absl::Duration refresh_interval = absl::InfiniteDuration();
  // deviceMemPeakStable: the device peak unchanged for this many steps.
  int stable_steps = 5;
  // The time source; null means absl::Now. Tests inject a fake clock. Called
  // under the GPUStatsFile's lock: it must not call back into it.
  std::function<absl::Time()> clock;
};

// Thread-safe: every method may be called concurrently (calls are
// serialised; a write happens under the lock, so files land in order).
class GPUStatsFile {
 public:
  explicit GPUStatsFile(GPUStatsOptions options);
  GPUStatsFile(const GPUStatsFile&) = delete;
  GPUStatsFile& operator=(const GPUStatsFile&) = delete;

  // Records one finished step of graph `graph_id` (the stable id of the
  // session's executor set) that took `duration`, with one sample per GPU,
  // and writes the file when the policy above says so. Returns OK when no
  // write was due, else the write's status; an error names the path and
  // leaves the previous file intact. Returns InvalidArgument, recording
  // nothing, when two samples have the same gpuUsageInfo key.
  absl::Status RecordStep(int64_t graph_id, absl::Duration duration,
                          const std::vector<GPUMemorySample>& gpus);

  // Writes the file now, whatever the policy. With no step since the last
  // write it rewrites the last written figures (none before the first step)
  // with a new timestamp.
  absl::Status Flush();

  // Successful writes so far.
  int64_t writes() const;

 private:
  // What the file says about one GPU.
  struct GPUFigures {
    std::string device;
    std::string bus_id;
    int64_t device_used_max = 0;
    int64_t device_used_min = 0;
    int64_t device_pool_bytes = 0;
    int64_t device_live_region_bytes = 0;
    int64_t device_limit_bytes = 0;
    bool device_peak_stable = false;
    int64_t host_used_max = 0;
    int64_t host_used_min = 0;
    int64_t host_pool_bytes = 0;
    std::string swap_reason;
    double gpu_share = 0;
    int64_t gpu_busy_us = 0;
    int perf_control = 100;

    bool operator==(const GPUFigures&) const = default;
  };
  // The device peak most recently seen on one GPU, and for how many
  // consecutive steps (the latest included) it has been that value.
  struct PeakRun {
    int64_t peak = 0;
    int steps = 0;
  };

  // Whether the window's GPUs differ from `written` in a figure that makes
  // the file pending (all but gpu_share and gpu_busy_us).
  static bool GPUFiguresChanged(const std::map<std::string, GPUFigures>& window,
                                const std::map<std::string, GPUFigures>& written);
  // The file's content.
  static std::string Render(absl::Time now, int64_t steps, int64_t latest_duration_us,
                            const std::map<int64_t, int64_t>& durations_us,
                            const std::map<std::string, GPUFigures>& gpus);
  // Renders the window (or, when it is empty, the last written figures) and
  // writes it; on success starts a new window.
  absl::Status WriteLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const GPUStatsOptions options_;

  mutable Mutex mu_;
  // The window: every GPU sampled since the last successful write, by key.
  // Empty when no step has been recorded since.
  std::map<std::string, GPUFigures> window_ ABSL_GUARDED_BY(mu_);
  // Per GPU key, across windows.
  std::map<std::string, PeakRun> peak_runs_ ABSL_GUARDED_BY(mu_);
  // Latest duration (µs) of every graph id recorded, across windows.
  std::map<int64_t, int64_t> durations_us_ ABSL_GUARDED_BY(mu_);
  // The latest step's duration (µs), whatever its graph.
  int64_t latest_duration_us_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t steps_ ABSL_GUARDED_BY(mu_) = 0;  // recorded so far
  // What the last successful write said; unset before the first.
  bool written_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, GPUFigures> written_gpus_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, int64_t> written_durations_us_ ABSL_GUARDED_BY(mu_);
  // A change not yet written.
  bool pending_ ABSL_GUARDED_BY(mu_) = false;
  // When the last write was attempted (successful or not).
  std::optional<absl::Time> last_attempt_ ABSL_GUARDED_BY(mu_);
  int64_t writes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace minitf

#endif  // MINITF_SESSION_ANTMAN_GPU_STATS_FILE_H_
