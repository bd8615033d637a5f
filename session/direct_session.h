// DirectSession: runs graphs in this process on the local devices.
//
// Create places the whole graph once (Extend places only the nodes it
// adds), as TensorFlow's GraphExecutionState: every node keeps that device
// in every Run, so a variable initialized in one Run is the variable the
// next Run updates, whatever each fetches.
//
// For each distinct (feeds, fetches, targets) signature it builds, once,
// the executors for that signature: it copies the placed graph, rewrites
// feeds and fetches into _Arg/_Retval nodes on the client device (the first
// CPU), prunes what the fetches and targets do not need, partitions the
// graph per device (cross-device edges become _Send/_Recv
// pairs) and builds one Executor per partition (ExecutorSet). Later Runs
// with the same signature (in any order) reuse them, and so do callables
// (MakeCallable), which also bind the order of their feeds and fetches so a
// call does no name parsing or cache lookup. The kernels of stateful ops are
// made once per session and device (OpSegment) and shared by every
// signature's executors.
//
// Close cancels the steps that are running (each step's cancellation manager
// hangs off the session's), waits until every call using the executors has
// returned, then frees the executors.
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
#include "runtime/cancellation.h"
#include "runtime/executor.h"
#include "runtime/op_segment.h"
#include "runtime/threadpool.h"
#include "session/executor_set.h"
#include "session/placer.h"
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
  absl::Status MakeCallable(const CallableOptions& callable_options,
                            CallableHandle* out_handle) override;
  absl::Status RunCallable(CallableHandle handle, const std::vector<Tensor>& feed_tensors,
                           std::vector<Tensor>* fetch_tensors, RunMetadata* run_metadata) override;
  absl::Status ReleaseCallable(CallableHandle handle) override;
  std::vector<Device*> ListDevices() const override;
  absl::Status Close() override;

  // Number of cached executor sets (one per Run signature), for tests.
  int NumCachedExecutors() const;
  // Number of stateful kernels the session's executors share, for tests.
  int NumSharedKernels() const { return op_segment_.size(); }
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

  // A signature bound by MakeCallable. Immutable once made.
  struct Callable {
    const ExecutorsAndKeys* executors = nullptr;  // In executors_; valid until Close.
    // Feed i (in the order of CallableOptions::feed) goes to call-frame
    // argument arg_index[i]; fetch j comes from retval retval_index[j].
    std::vector<int> arg_index;
    std::vector<int> retval_index;
    // The fetches are the retvals in order: the call moves them out whole.
    bool retvals_in_fetch_order = false;
    std::vector<std::string> feed_names;  // As given, for error messages.
    RunOptions run_options;
  };

  DirectSession(const SessionOptions& options, std::unique_ptr<DeviceMgr> device_mgr);

  absl::StatusOr<const ExecutorsAndKeys*> GetOrCreateExecutors(
      const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
  // Node name -> the device it was placed on.
  using Placement = absl::flat_hash_map<std::string, std::string>;
  // Places every node of `graph_def`; those in `placed` keep their devices.
  absl::StatusOr<Placement> PlaceWholeGraph(const GraphDef& graph_def,
                                            const Placement& placed) const;
  static void AssignPlacedDevices(const Placement& placement, Graph* graph);
  absl::StatusOr<std::unique_ptr<ExecutorsAndKeys>> CreateExecutors(
      const GraphDef& graph_def, const Placement& placement,
      const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
  // A Run's or callable's names, canonical ("x" -> "x:0"), and the executors
  // of their signature.
  struct Signature {
    std::vector<std::string> feeds;    // In the order given.
    std::vector<std::string> fetches;  // In the order given, repeats kept.
    const ExecutorsAndKeys* executors = nullptr;
  };
  // Parses the names, refuses a tensor fed twice, and finds (or builds) the
  // executors of the signature (sorted feeds, sorted distinct fetches and
  // targets).
  absl::Status CanonicalSignature(const std::vector<std::string>& feed_names,
                                  const std::vector<std::string>& fetch_names,
                                  const std::vector<std::string>& target_names,
                                  Signature* signature);
  // Whether `value` may feed argument `index` of `eks`; errors name the feed.
  static absl::Status CheckFeed(const ExecutorsAndKeys& eks, int index, absl::string_view name,
                                const Tensor& value);
  absl::Status CheckGraphCreated(absl::string_view method) const;
  PlacerOptions PlacerOptionsOf() const;
  // Runs one step of `eks` with `args` in call-frame order; fills `retvals`
  // (in retval order) unless it is null.
  absl::Status RunExecutors(const ExecutorsAndKeys& eks, std::vector<Tensor> args,
                            const RunOptions& run_options, RunMetadata* run_metadata,
                            std::vector<Tensor>* retvals);
  // CANCELLED once Close has been called, as TensorFlow's sessions answer
  // Create, Extend and Run then.
  absl::Status CheckNotClosed() const;
  // A call that uses the executors (Run, MakeCallable, RunCallable) begins
  // and ends; Close waits until none is left. BeginCall fails with
  // CANCELLED once Close has begun; EndCall only follows a BeginCall that
  // succeeded.
  absl::Status BeginCall();
  void EndCall();

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
  // The kernels of stateful ops, shared by every ExecutorSet; declared
  // before executors_ so it outlives them.
  OpSegment op_segment_;
  // Every step's cancellation manager hangs off this one; Close cancels it.
  CancellationManager cancellation_manager_;

  std::atomic<int64_t> next_step_id_{1};

  mutable Mutex close_mu_;
  bool closed_ ABSL_GUARDED_BY(close_mu_) = false;
  int calls_in_flight_ ABSL_GUARDED_BY(close_mu_) = 0;
  CondVar no_calls_in_flight_;  // Signalled when calls_in_flight_ drops to 0.

  mutable Mutex graph_mu_;
  GraphDef graph_def_ ABSL_GUARDED_BY(graph_mu_);
  // Where every node of graph_def_ runs, chosen at Create and Extend.
  Placement placement_ ABSL_GUARDED_BY(graph_mu_);
  bool graph_created_ ABSL_GUARDED_BY(graph_mu_) = false;

  mutable Mutex executor_mu_;
  // Signature key -> executors. Entries are removed only by Close, once no
  // call is left, so pointers to them stay valid for a call's duration.
  absl::flat_hash_map<std::string, std::unique_ptr<ExecutorsAndKeys>> executors_
      ABSL_GUARDED_BY(executor_mu_);
  int64_t next_graph_id_ ABSL_GUARDED_BY(executor_mu_) = 1;

  mutable Mutex callables_mu_;
  // By handle; null once released (or the session closed). A call holds a
  // share of its callable, so ReleaseCallable need not wait for it.
  std::vector<std::shared_ptr<const Callable>> callables_ ABSL_GUARDED_BY(callables_mu_);
};

}  // namespace minitf

#endif  // MINITF_SESSION_DIRECT_SESSION_H_
