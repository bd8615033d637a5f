// ExecutorSet: the executors of one Run signature, one per device partition,
// and how one step runs them together (TensorFlow's DirectSession
// ExecutorsAndKeys items and its ExecutorBarrier).
//
//   MINITF_ASSIGN_OR_RETURN(auto set, ExecutorSet::Create(partitions, device_mgr));
//   ExecutorSet::StepArgs step;
//   step.step_id = 7;
//   step.call_frame = &frame;
//   step.runner = runner;
//   MINITF_RETURN_IF_ERROR(set->RunStep(step));
//
// A step gets its own IntraProcessRendezvous and CancellationManager and
// starts every partition at once (all but one on the runner, the last on the
// calling thread). The first error of any partition aborts the rendezvous, so
// _Recv nodes blocked in the other partitions wake, and cancels the step;
// the step then returns that error once every partition has stopped. A
// deadline aborts and cancels the same way and returns DeadlineExceeded; so
// does cancelling the session's CancellationManager (Session::Close), which
// returns Cancelled.
//
// The kernels of stateful ops come from the session's OpSegment, so every
// ExecutorSet of a session shares them (one random stream, one variable).
//
// Immutable once created; RunStep may be called from many threads at once.
#ifndef MINITF_SESSION_EXECUTOR_SET_H_
#define MINITF_SESSION_EXECUTOR_SET_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "device/device_mgr.h"
#include "runtime/executor.h"
#include "runtime/op_segment.h"

namespace minitf {

class ExecutorSet {
 public:
  struct Partition {
    Device* device = nullptr;  // Not owned.
    std::unique_ptr<Executor> executor;
  };

  // What one step needs; pointers are not owned and must outlive RunStep.
  struct StepArgs {
    int64_t step_id = 0;
    CallFrameInterface* call_frame = nullptr;
    StepStatsCollector* stats_collector = nullptr;  // Null: no stats.
    // Runs expensive nodes and the extra partitions; when empty, everything
    // runs on the calling thread.
    Runner runner;
    // The step's deadline, from the call to RunStep; 0 means none. With a
    // deadline and a runner, every partition runs on the runner, so the
    // calling thread is free to cancel the step when it passes.
    int64_t timeout_ms = 0;
    // The session's: cancelling it cancels the step, which then returns
    // Cancelled. May be null.
    CancellationManager* session_cancellation = nullptr;
    // The caller's, for this step alone (RunOptions::cancellation_manager):
    // cancelling it cancels the step the same way. May be null.
    CancellationManager* run_cancellation = nullptr;
  };

  // Builds one executor per partition (keyed by full device name), each on
  // its device. The kernels of stateful ops (OpSegment::ShouldOwnKernel) are
  // taken from `op_segment`, or made there once; with a null segment every
  // executor makes its own. `device_mgr` and `op_segment` are not owned and
  // must outlive the set. Errors name the node whose kernel could not be
  // created, or the unknown device.
  static absl::StatusOr<std::unique_ptr<ExecutorSet>> Create(
      const absl::flat_hash_map<std::string, GraphDef>& partitions,
      const DeviceMgr* device_mgr, OpSegment* op_segment);

  // Runs one step on every partition and waits for all of them. Returns OK,
  // the first error of any partition, DeadlineExceeded, or Cancelled when
  // the session's cancellation manager was (or is) cancelled.
  absl::Status RunStep(const StepArgs& step) const;

  // In device-name order.
  const std::vector<Partition>& partitions() const { return partitions_; }

 private:
  ExecutorSet(const DeviceMgr* device_mgr, std::vector<Partition> partitions)
      : device_mgr_(device_mgr), partitions_(std::move(partitions)) {}

  const DeviceMgr* const device_mgr_;
  const std::vector<Partition> partitions_;
};

}  // namespace minitf

#endif  // MINITF_SESSION_EXECUTOR_SET_H_
