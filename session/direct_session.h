// DirectSession: runs graphs in this process on the local devices.
//
// For each distinct (feeds, fetches, targets) signature it builds, once,
// the executors for that signature: it copies the graph, rewrites feeds and
// fetches into _Arg/_Retval nodes on the client device (the first CPU),
// prunes what the fetches and targets do not need, places every node,
// partitions the graph per device (cross-device edges become _Send/_Recv
// pairs) and builds one Executor per partition (ExecutorSet). Later Runs
// with the same signature (in any order) reuse them.
//
// Thread-safe: Run may be called from many threads at once; each call gets
// its own step id, call frame, rendezvous and cancellation manager.
#ifndef MINITF_SESSION_DIRECT_SESSION_H_
#define MINITF_SESSION_DIRECT_SESSION_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "device/device_mgr.h"
#include "platform/mutex.h"
#include "runtime/executor.h"
#include "runtime/threadpool.h"
#include "session/executor_set.h"
#include "session/session.h"
#include "session/session_run_action.h"

namespace minitf {

class DirectSession : public Session {
 public:
  // Creates the session's devices and thread pools.
  static absl::StatusOr<std::unique_ptr<DirectSession>> New(const SessionOptions& options);
  ~DirectSession() override;

  absl::Status Create(const GraphDef& graph) override;
  absl::Status Extend(const GraphDef& graph) override;
  using Session::Run;
  absl::Status Run(const RunOptions& run_options,
                   const std::vector<std::pair<std::string, Tensor>>& inputs,
                   const std::vector<std::string>& output_tensor_names,
                   const std::vector<std::string>& target_node_names,
                   std::vector<Tensor>* outputs, RunMetadata* run_metadata) override;
  std::vector<Device*> ListDevices() const override;
  absl::Status Close() override;

  // Number of cached executor sets (one per Run signature), for tests.
  int NumCachedExecutors() const;
  // What the session-run actions keep for this session (the AntMan control
  // plane's state: GPUResourceManagement::StateOf(session->action_states())).
  SessionActionStates* action_states() { return &action_states_; }
  // The options in force, with what the session-run actions filled in.
  const SessionOptions& options() const { return options_; }

 private:
  // The executors for one Run signature. Immutable once built.
  struct ExecutorsAndKeys {
    int64_t graph_id = 0;  // Stable per cache entry.
    std::unique_ptr<ExecutorSet> executors;
    // Canonical feed and fetch names -> their index in the call frame.
    absl::flat_hash_map<std::string, int> input_index;
    absl::flat_hash_map<std::string, int> output_index;
    int num_outputs = 0;
    // What each feed must be.
    std::vector<DataType> feed_types;
    std::vector<PartialTensorShape> feed_shapes;
  };

  DirectSession(const SessionOptions& options, std::unique_ptr<DeviceMgr> device_mgr);

  absl::StatusOr<const ExecutorsAndKeys*> GetOrCreateExecutors(
      const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
  absl::StatusOr<std::unique_ptr<ExecutorsAndKeys>> CreateExecutors(
      const GraphDef& graph_def, const std::vector<std::string>& feeds,
      const std::vector<std::string>& fetches, const std::vector<std::string>& targets);
  // CANCELLED once Close has been called, as TensorFlow's sessions answer
  // Create, Extend and Run then.
  absl::Status CheckNotClosed() const;

  // Constant after construction. options_ has what the session-run actions
  // filled in (SessionRunAction::FillSessionOptions).
  const SessionOptions options_;
  SessionRunActionRegistry* const action_registry_;
  const std::unique_ptr<DeviceMgr> device_mgr_;
  const DeviceSet device_set_;
  // Device name -> its incarnation in this session (random, as TensorFlow's
  // are), written into the rendezvous keys of cross-device transfers.
  const absl::flat_hash_map<std::string, uint64_t> incarnations_;
  const std::unique_ptr<ThreadPool> inter_op_pool_;
  const Runner runner_;

  // What the session-run actions keep for this session.
  SessionActionStates action_states_;

  std::atomic<int64_t> next_step_id_{1};
  std::atomic<bool> closed_{false};

  mutable Mutex graph_mu_;
  GraphDef graph_def_ ABSL_GUARDED_BY(graph_mu_);
  bool graph_created_ ABSL_GUARDED_BY(graph_mu_) = false;

  mutable Mutex executor_mu_;
  // Signature key -> executors. Entries are never removed while the session
  // lives, so pointers to them stay valid.
  absl::flat_hash_map<std::string, std::unique_ptr<ExecutorsAndKeys>> executors_
      ABSL_GUARDED_BY(executor_mu_);
  int64_t next_graph_id_ ABSL_GUARDED_BY(executor_mu_) = 1;
};

}  // namespace minitf

#endif  // MINITF_SESSION_DIRECT_SESSION_H_
