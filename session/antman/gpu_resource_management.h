// GPUResourceManagement: applies a job's GPU config file at step boundaries
// (AntMan's POST_SESSION_RUN action, phase 2).
//
// A session with a config file (SessionOptions::gpu_config_file, else
// GPU_CONFIG_FILE; format in docs/ANTMAN.md) gets a GPUResourceState the
// first time the action runs for it. The state listens to the file
// (FileListener) and, after every step:
//
//   memory    a new maxDeviceMem for one of the session's GPUs (by bus id or
//             "GPU:<n>") becomes the target of that GPU's device allocator,
//             clamped to the limit it was created with; a shrink that live
//             buffers prevent is retried after each later step until reached
//             or changed again (meanwhile VMem puts what does not fit on the
//             host). Logged once per requested limit, with the limit in
//             force, and again only when that limit moves.
//   compute   perfControl 100 runs unrestricted; 1..99 is the job's target
//             share of GPU time, met by idle time: slots the device's
//             GpuOpManager inserts before queued launches, and a sleep after
//             the step for what the slots did not use (PacingController, the
//             session's pacing_policy); 0 suspends the job at this boundary,
//             without spinning, until the value is raised. Under the 'sms'
//             policy, 1..100 is the job's share of the SMs instead (its
//             streams' SM partition, GPUOptions.sm_fraction), no idle.
//
// A bad file (malformed JSON, a wrong type, perfControl outside 0..100, a
// deleted file, more than 1 MiB, no regular file such as a FIFO or
// /dev/zero) is logged with the file and field or bound at fault and
// changes nothing: the last good settings stay in force. An unknown device
// in an otherwise good file is logged and skipped. A file whose directory
// does not exist yet is taken once both exist.
//
// Pacing assumes one step at a time per session (a training loop); the
// boundary's bookkeeping is serialised, its sleep or suspension is not.
#ifndef MINITF_SESSION_ANTMAN_GPU_RESOURCE_MANAGEMENT_H_
#define MINITF_SESSION_ANTMAN_GPU_RESOURCE_MANAGEMENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "device/device_mgr.h"
#include "device/gpu/gpu_device.h"
#include "platform/mutex.h"
#include "runtime/gpu_pacing.h"
#include "session/antman/file_listener.h"
#include "session/antman/gpu_config.h"
#include "session/session_run_action.h"

namespace minitf {

class GPUResourceState : public SessionActionState {
 public:
  // What is in force, for statistics, the harness and tests.
  struct DeviceStatus {
    std::string device;            // "GPU:0"
    std::string bus_id;            // "0000:50:00.0"
    int64_t requested_limit = 0;   // the last maxDeviceMem applied (0: none)
    int64_t limit_in_force = 0;    // the device allocator's limit now
    bool shrink_pending = false;   // requested limit not reached yet
    double achieved_share = 0;     // GPU busy share since perfControl last changed
  };
  struct Status {
    int perf_control = 100;        // in force
    bool suspended = false;
    int64_t configs_applied = 0;   // good files taken
    int64_t configs_rejected = 0;  // bad files ignored
    std::string last_error;        // why the last bad file was ignored
    // The last step boundary's idle: the pacing sleep after the step, and
    // the time the job was suspended (perfControl 0) there.
    absl::Duration last_sleep;
    absl::Duration last_suspension;
    std::vector<DeviceStatus> devices;
  };

  // Listens to `config_file` with `listener` (not owned; must outlive the
  // state). A listener that cannot watch the file is logged; the session
  // then runs unmanaged. The GPUs are `device_mgr`'s (not owned).
  GPUResourceState(std::string config_file, PacingPolicy policy, const DeviceMgr* device_mgr,
                   FileListener* listener);
  ~GPUResourceState() override;

  // The action's work after one step of `step_duration`.
  void AfterStep(absl::Duration step_duration);

  Status GetStatus() const;
  int perf_control() const;
  // Blocks until a config file's content has been taken (good or bad) or
  // `timeout` passes; true if one was. For tests and the harness.
  bool WaitForConfigCount(int64_t count, absl::Duration timeout) const;

 private:
  struct ManagedGPU {
    ManagedGPU(GPUDevice* device, PacingPolicy policy) : gpu(device), pacer(policy) {}
    GPUDevice* gpu;  // Not owned.
    PacingController pacer;
    absl::Duration last_busy;
    int64_t requested_limit = 0;
    int64_t limit_in_force = 0;
    bool shrink_pending = false;
    // What the last memory-limit log line was about: the requested limit
    // and the limit then in force (-1: none yet).
    int64_t reported_request = -1;
    int64_t reported_limit = -1;
  };

  void OnFileEvent(const FileEvent& event);
  void ApplyMemoryLimits(const GPUConfig& config) ABSL_EXCLUSIVE_LOCKS_REQUIRED(step_mu_);
  void RetryShrinks() ABSL_EXCLUSIVE_LOCKS_REQUIRED(step_mu_);
  // Sets up or measures pacing for this boundary; returns how long to idle
  // now, or sets `*suspend` when perfControl just became 0.
  absl::Duration Pace(int perf_control, absl::Duration loop_time, bool* suspend)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(step_mu_);
  // The 'sms' policy: the GPU's SM partition at perfControl% (logged).
  void ApplySmShare(ManagedGPU* managed, int perf_control) ABSL_EXCLUSIVE_LOCKS_REQUIRED(step_mu_);
  void Suspend();
  // Sleeps up to `d`, woken early by a perfControl change or destruction.
  absl::Duration IdleFor(absl::Duration d);

  // Constant after construction.
  const std::string config_file_;
  const PacingPolicy policy_;
  FileListener* const listener_;
  int64_t listener_id_ = -1;  // Written once, by the constructor.

  // Held for a boundary's bookkeeping (not for its sleep or suspension).
  mutable Mutex step_mu_;
  std::vector<ManagedGPU> gpus_ ABSL_GUARDED_BY(step_mu_);
  int perf_applied_ ABSL_GUARDED_BY(step_mu_) = 100;
  int64_t version_applied_ ABSL_GUARDED_BY(step_mu_) = 0;
  absl::Time last_step_end_ ABSL_GUARDED_BY(step_mu_) = absl::InfinitePast();
  absl::Duration slept_ ABSL_GUARDED_BY(step_mu_);
  absl::Duration suspended_for_ ABSL_GUARDED_BY(step_mu_);

  // What the listener delivered. Lock order: step_mu_, then mu_.
  mutable Mutex mu_;
  mutable CondVar changed_;  // perf_ or config_version_ changed, or stopping_
  GPUConfig config_ ABSL_GUARDED_BY(mu_);
  int64_t config_version_ ABSL_GUARDED_BY(mu_) = 0;
  int perf_ ABSL_GUARDED_BY(mu_) = 100;
  bool suspended_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int64_t configs_applied_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t configs_rejected_ ABSL_GUARDED_BY(mu_) = 0;
  std::string last_error_ ABSL_GUARDED_BY(mu_);
};

// The action registered as ("POST_SESSION_RUN", 2, "GPUResourceManagement").
// Does nothing for a session without a config file.
class GPUResourceManagement : public SessionRunAction {
 public:
  static constexpr char kName[] = "GPUResourceManagement";
  std::string name() const override { return kName; }
  absl::Status RunAction(const SessionRunActionOptions& options) override;
  void FillSessionOptions(SessionOptions* options) const override;

  // The session's state, or null when it has none (yet). Not owned.
  static GPUResourceState* StateOf(SessionActionStates* states);
};

}  // namespace minitf

#endif  // MINITF_SESSION_ANTMAN_GPU_RESOURCE_MANAGEMENT_H_
