// GpuOpManager: one GPU device's launch queue for AntMan compute pacing.
//
// While a job runs below its full GPU share, the executor does not launch
// the device's async GPU kernels itself: it queues each launch here, and
// the manager's thread waits an idle slot before running it, so the job's
// kernels reach the GPU spread out over the step. The slots of one step are
// cut from an idle budget the session sets at every step boundary
// (PacingController in gpu_pacing.h computes it):
//
//   GpuOpManager manager("/device:GPU:0");                 // owned by the device
//   manager.SetActive(true);                                 // perfControl < 100
//   GpuOpManager::StepCounters last = manager.BeginStep(budget, expected_launches);
//   manager.Enqueue([=] { device->ComputeAsync(kernel, ctx, done); });   // executor
//
// The slot before the op at the head of the queue is the pacing policy's
// (SlotFor in gpu_pacing.h).
// A slot ends early, and the op launches at once, when the manager is
// destroyed, made inactive, or a new step begins; only idle actually waited
// is charged to the budget, so slots + unused budget == budget for every step.
#ifndef MINITF_RUNTIME_GPU_OP_MANAGER_H_
#define MINITF_RUNTIME_GPU_OP_MANAGER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"
#include "platform/mutex.h"
#include "runtime/gpu_op_queue.h"
#include "runtime/gpu_pacing.h"

namespace minitf {

// Thread-safe. Owns one thread, started by the constructor and joined by the
// destructor, which runs the launches still queued first: a launch handed to
// Enqueue is never dropped.
class GpuOpManager : public GpuOpQueue {
 public:
  // Counters of one step, from one BeginStep to the next.
  struct StepCounters {
    absl::Duration slots;          // Idle inserted before launches.
    int launches = 0;              // Launches run.
    absl::Duration unused_budget;  // Budget left over: budget - slots.
  };

  // `paces_sync_kernels`: see GpuOpQueue (true for a GPU device).
  explicit GpuOpManager(std::string device_name, bool paces_sync_kernels = false);
  ~GpuOpManager();
  GpuOpManager(const GpuOpManager&) = delete;
  GpuOpManager& operator=(const GpuOpManager&) = delete;

  const std::string& device_name() const { return device_name_; }

  // Whether the executor must route the device's async launches through
  // Enqueue. Cheap (one atomic load): the executor asks for every launch.
  bool active() const override { return active_.load(std::memory_order_acquire); }
  bool paces_sync_kernels() const override { return paces_sync_kernels_; }
  // Set by the session: true while the job's perfControl is below 100.
  // While inactive, queued launches run without slots.
  void SetActive(bool active);
  void SetPolicy(PacingPolicy policy);
  PacingPolicy policy() const;

  // Starts a step: `budget` is the idle its slots may insert in all, and
  // `expected_launches` how many launches it will make (those of the
  // previous step; used by kPrecise). Ends a slot in progress. Returns the
  // counters of the step that ends here.
  StepCounters BeginStep(absl::Duration budget, int expected_launches);

  // Queues `launch`; the manager's thread runs it after the launch's idle
  // slot, in FIFO order, without holding any lock. `launch` must be cheap (it
  // only enqueues work on a stream) and may call Enqueue. REQUIRES: the
  // destructor has not started.
  void Enqueue(std::function<void()> launch) override;

  // Since construction.
  int64_t total_launches() const;
  absl::Duration total_slots() const;

  // One idle slot actually waited: for traces (the harness's trace.json).
  struct IdleSlot {
    absl::Time start;
    absl::Duration length;
  };
  // While on, every slot waited is kept, up to kMaxRecordedSlots between two
  // TakeSlots (the rest are counted, not kept). Off by default.
  void RecordSlots(bool on);
  // The slots kept since the last call, oldest first; `dropped` (optional)
  // gets how many were not kept.
  std::vector<IdleSlot> TakeSlots(int64_t* dropped = nullptr);
  static constexpr size_t kMaxRecordedSlots = 1 << 16;

 private:
  // The manager thread's loop: wait for a launch, wait its slot, run it.
  void Run();
  // Waits the slot of the launch at the head of the queue (or less).
  void WaitSlot() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends the slot in progress, charging the idle waited so far to the
  // current step.
  void EndSlot() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const std::string device_name_;
  const bool paces_sync_kernels_;

  std::atomic<bool> active_{false};

  mutable Mutex mu_;
  // Signalled when a launch is queued, and to end a slot early (stop,
  // SetActive(false), BeginStep).
  CondVar cv_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  PacingPolicy policy_ ABSL_GUARDED_BY(mu_) = PacingPolicy::kAntMan;
  // The current step.
  absl::Duration remaining_budget_ ABSL_GUARDED_BY(mu_);
  int expected_launches_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Duration step_slots_ ABSL_GUARDED_BY(mu_);
  int step_launches_ ABSL_GUARDED_BY(mu_) = 0;
  // The slot in progress, if any: when it started and how long it may last
  // (at most remaining_budget_ when it started).
  bool in_slot_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time slot_start_ ABSL_GUARDED_BY(mu_);
  absl::Duration slot_length_ ABSL_GUARDED_BY(mu_);
  // Since construction.
  int64_t total_launches_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Duration total_slots_ ABSL_GUARDED_BY(mu_);
  // RecordSlots.
  bool record_slots_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<IdleSlot> slots_ ABSL_GUARDED_BY(mu_);
  int64_t slots_dropped_ ABSL_GUARDED_BY(mu_) = 0;

  // Last member: started once everything above is initialized.
  std::thread thread_;
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_GPU_OP_MANAGER_H_
