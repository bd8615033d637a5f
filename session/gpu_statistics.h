// GPUStatistics: reports a job's GPU usage to a scheduler after every step
// (AntMan's POST_SESSION_RUN action, phase 1).
//
// A session with a status file (SessionOptions::gpu_status_file, else
// GPU_STATUS_FILE) gets a GpuStatisticsState the first time the action runs
// for it. After each step the state samples each of the session's GPUs —
// device bytes in use and the step's peak (the allocators' peaks are reset
// after each sample), the pool reserved, the limit in force, bytes VMem put
// on the host and why, and the job's GPU busy share over the step — and
// hands them to GpuStatsFile, which decides when to rewrite the file and
// writes it atomically (format in docs/ANTMAN.md). A failed write is
// logged; it never fails the step.
#ifndef MINITF_SESSION_GPU_STATISTICS_H_
#define MINITF_SESSION_GPU_STATISTICS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "device/device_mgr.h"
#include "device/gpu/gpu_device.h"
#include "runtime/mutex.h"
#include "session/gpu_stats_file.h"
#include "session/session_run_action.h"

namespace minitf {

class GpuResourceState;

class GpuStatisticsState : public SessionActionState {
 public:
  // `device_mgr` is not owned and must outlive the state.
  GpuStatisticsState(GpuStatsOptions options, const DeviceMgr* device_mgr);

  // Samples the GPUs after a step of `graph_id` that took `duration`;
  // `resources` (may be null) gives the perfControl in force.
  void AfterStep(int64_t graph_id, absl::Duration duration, const GpuResourceState* resources);

  // The samples of the last step, for tests and the harness.
  std::vector<GpuMemorySample> LastSamples() const;
  const GpuStatsFile& file() const { return file_; }

 private:
  struct TrackedGpu {
    GPUDevice* gpu;  // Not owned.
    absl::Duration last_busy;
    std::string swap_reason;  // Kept while bytes stay on the host.
  };

  GpuStatsFile file_;

  mutable Mutex mu_;
  std::vector<TrackedGpu> gpus_ ABSL_GUARDED_BY(mu_);
  absl::Time last_sample_ ABSL_GUARDED_BY(mu_);
  std::vector<GpuMemorySample> last_samples_ ABSL_GUARDED_BY(mu_);
};

// The action registered as ("POST_SESSION_RUN", 1, "GPUStatistics"). Does
// nothing for a session without a status file.
class GPUStatistics : public SessionRunAction {
 public:
  static constexpr char kName[] = "GPUStatistics";
  std::string name() const override { return kName; }
  absl::Status RunAction(const SessionRunActionOptions& options) override;

  // The session's state, or null when it has none (yet). Not owned.
  static GpuStatisticsState* StateOf(SessionActionStates* states);
};

}  // namespace minitf

#endif  // MINITF_SESSION_GPU_STATISTICS_H_
