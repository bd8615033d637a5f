// GPUStatistics: reports a job's GPU usage to a scheduler after every step
// (AntMan's POST_SESSION_RUN action, phase 1).
//
// A session with a status file (SessionOptions::gpu_status_file, else
// GPU_STATUS_FILE) gets a GPUStatisticsState the first time the action runs
// for it. After each step the state samples each of the session's GPUs —
// device bytes in use and the step's peak (the allocators' peaks are reset
// after each sample), the pool reserved and the part of it in regions that
// hold a live chunk, the limit in force, bytes VMem put on the host and
// why, and the job's GPU busy share over the step — and hands them to
// GPUStatsFile, which decides when to rewrite the file and writes it
// atomically in AntMan's format (session/antman/gpu_stats_file.h,
// docs/ANTMAN.md). A failed write is logged; it never fails the step.
#ifndef MINITF_SESSION_ANTMAN_GPU_STATISTICS_H_
#define MINITF_SESSION_ANTMAN_GPU_STATISTICS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "device/device_mgr.h"
#include "device/gpu/gpu_device.h"
#include "platform/mutex.h"
#include "session/antman/gpu_stats_file.h"
#include "session/session_run_action.h"

namespace minitf {

class GPUResourceState;

class GPUStatisticsState : public SessionActionState {
 public:
  // `device_mgr` is not owned and must outlive the state.
  GPUStatisticsState(GPUStatsOptions options, const DeviceMgr* device_mgr);

  // Samples the GPUs after a step of `graph_id` that took `duration`;
  // `resources` (may be null) gives the perfControl in force.
  void AfterStep(int64_t graph_id, absl::Duration duration, const GPUResourceState* resources);

  // The samples of the last step, for tests and the harness.
  std::vector<GPUMemorySample> LastSamples() const;
  const GPUStatsFile& file() const { return file_; }

 private:
  struct TrackedGPU {
    GPUDevice* gpu;  // Not owned.
    absl::Duration last_busy;
    std::string swap_reason;  // Kept while bytes stay on the host.
  };

  GPUStatsFile file_;  // Thread-safe on its own.

  mutable Mutex mu_;
  std::vector<TrackedGPU> gpus_ ABSL_GUARDED_BY(mu_);
  absl::Time last_sample_ ABSL_GUARDED_BY(mu_);
  std::vector<GPUMemorySample> last_samples_ ABSL_GUARDED_BY(mu_);
};

// The action registered as ("POST_SESSION_RUN", 1, "GPUStatistics"). Does
// nothing for a session without a status file.
class GPUStatistics : public SessionRunAction {
 public:
  static constexpr char kName[] = "GPUStatistics";
  std::string name() const override { return kName; }
  absl::Status RunAction(const SessionRunActionOptions& options) override;
  void FillSessionOptions(SessionOptions* options) const override;

  // The session's state, or null when it has none (yet). Not owned.
  static GPUStatisticsState* StateOf(SessionActionStates* states);
};

}  // namespace minitf

#endif  // MINITF_SESSION_ANTMAN_GPU_STATISTICS_H_
