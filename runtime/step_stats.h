// Step statistics: per-node timing and output sizes of one step, gathered
// when RunOptions asks for a trace (TensorFlow's StepStats / NodeExecStats).
#ifndef MINITF_RUNTIME_STEP_STATS_H_
#define MINITF_RUNTIME_STEP_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "platform/mutex.h"

namespace minitf {

struct NodeOutputStats {
  int slot = 0;
  int64_t allocated_bytes = 0;
  std::string shape;  // "[2,3]"
};

struct NodeExecStats {
  std::string node_name;
  std::string op;
  int64_t scheduled_micros = 0;   // When the node became ready (wall clock).
  int64_t all_start_micros = 0;   // When the executor began processing it.
  int64_t op_start_rel_micros = 0;  // Relative to all_start_micros.
  int64_t op_end_rel_micros = 0;
  int64_t all_end_rel_micros = 0;
  uint32_t thread_id = 0;
  // The kernel was async: it started on `thread_id` and finished later from a
  // stream or a rendezvous callback (op_end is when it called done).
  bool async = false;
  std::vector<NodeOutputStats> outputs;
};

struct DeviceStepStats {
  std::string device;
  std::vector<NodeExecStats> node_stats;
};

struct StepStats {
  std::vector<DeviceStepStats> dev_stats;
};

// Collects NodeExecStats from executor threads. Thread-safe.
class StepStatsCollector {
 public:
  void Save(const std::string& device, NodeExecStats stats);
  // Moves the collected stats into `out` (one entry per device).
  void Finalize(StepStats* out);

 private:
  Mutex mu_;
  std::vector<DeviceStepStats> dev_stats_ ABSL_GUARDED_BY(mu_);
};

// Microseconds since the epoch.
int64_t NowMicros();

}  // namespace minitf

#endif  // MINITF_RUNTIME_STEP_STATS_H_
