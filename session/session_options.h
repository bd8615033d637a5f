// SessionOptions, RunOptions, RunMetadata: how a session is configured, how
// one Run is configured, and what a Run reports back.
#ifndef MINITF_SESSION_SESSION_OPTIONS_H_
#define MINITF_SESSION_SESSION_OPTIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "device/gpu/gpu_options.h"
#include "optimizer/optimizer_options.h"
#include "runtime/step_stats.h"

namespace minitf {

// TensorFlow's ConfigProto: the parts minitf implements.
struct ConfigProto {
  // Threads of the session's inter-op pool (runs expensive nodes); 0 means
  // one per core.
  int inter_op_parallelism_threads = 0;
  // Threads each device splits a kernel's element loops over; 0 means one
  // per core.
  int intra_op_parallelism_threads = 0;
  // Devices of each type to create, at most ("CPU" -> 1).
  std::map<std::string, int> device_count;
  // When a node asks for a device that does not exist, place it elsewhere
  // instead of failing.
  bool allow_soft_placement = false;
  // Logs the device each node was placed on.
  bool log_device_placement = false;
  // Default deadline of every Run, in ms; 0 means none.
  int64_t operation_timeout_in_ms = 0;
  // The session's GPU devices: platform, SimGPU options, memory limit,
  // allow_growth, VMem, private allocator stacks, thread mode.
  GPUOptions gpu_options;
  // The graph passes each Run signature's graph goes through
  // (optimizer/graph_optimizer.h); all of them by default, as in TensorFlow.
  GraphOptions graph_options;
};

class CancellationManager;
class SessionRunActionRegistry;

struct SessionOptions {
  ConfigProto config;

  // The AntMan control plane (docs/ANTMAN.md; session/antman/). A non-empty
  // config file turns GPU resource management on for this session (and with
  // it allow_growth and VMem on its GPUs); a non-empty status file turns GPU
  // statistics on. "" takes the environment (GPU_CONFIG_FILE,
  // GPU_STATUS_FILE), read by the control plane's actions when the session is
  // made. Giving them here lets several jobs in one process each have their
  // own files.
  std::string gpu_config_file;
  std::string gpu_status_file;
  // How perfControl is enforced: "precise" or "antman" ("" takes
  // MINITF_PACING_POLICY, else "precise").
  std::string pacing_policy;
  // The actions run around each Run; null means
  // SessionRunActionRegistry::Global(). Not owned; must outlive the session.
  SessionRunActionRegistry* action_registry = nullptr;
};

struct RunOptions {
  enum TraceLevel { NO_TRACE = 0, FULL_TRACE = 1 };
  TraceLevel trace_level = NO_TRACE;
  // Deadline of this Run in ms (overrides the session's); 0 means none.
  int64_t timeout_in_ms = 0;
  // Not in TensorFlow's RunOptions (its Python client cannot stop a Run):
  // cancelling this manager stops this Run, which then returns Cancelled
  // (the Python binding cancels the step on Ctrl-C). Not owned; may be
  // null; must outlive the Run.
  CancellationManager* cancellation_manager = nullptr;
};

struct RunMetadata {
  // Filled when RunOptions::trace_level is FULL_TRACE.
  StepStats step_stats;
};

// What Session::MakeCallable binds once: the tensors a call feeds, in the
// order RunCallable takes them; the tensors it fetches, in the order it
// returns them (a tensor may be fetched more than once); the nodes it runs
// for their effect; and the RunOptions of every call.
//
//   session->MakeCallable({.feed = {"x"}, .fetch = {"y:0"}}, &handle);
struct CallableOptions {
  // (Initialized, so designated initializers may leave any of them out.)
  std::vector<std::string> feed = {};
  std::vector<std::string> fetch = {};
  std::vector<std::string> target = {};
  RunOptions run_options = {};
};

}  // namespace minitf

#endif  // MINITF_SESSION_SESSION_OPTIONS_H_
