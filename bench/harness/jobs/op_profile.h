// OpProfile: where a graph's steps go, per op type and device, summed from
// the steps' StepStats (RunOptions FULL_TRACE), as TensorFlow's
// benchmark_model --show_summary prints it. `minitf run --profile`.
//
//   OpProfile profile;
//   profile.AddStep(metadata.step_stats, step_seconds);   // each step
//   std::cout << FormatOpProfile(profile);
//
// A node's time is its op's: from the start of its kernel's Compute to its
// end (an async kernel's end is when it called done, so a GPU op's time
// includes the wait for its stream). Nodes of one step overlap when the
// executor runs them side by side, so their times may add up to more than
// the step's.
#ifndef MINITF_BENCH_HARNESS_JOBS_OP_PROFILE_H_
#define MINITF_BENCH_HARNESS_JOBS_OP_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "runtime/step_stats.h"

namespace minitf::harness {

struct OpTypeTime {
  std::string op;      // "MatMul"
  std::string device;  // "CPU:0", "GPU:0": the device name's last part
  int64_t executions = 0;
  double seconds = 0;  // Their op time, summed.
};

class OpProfile {
 public:
  void AddStep(const StepStats& stats, double step_seconds);

  int steps() const { return steps_; }
  // Every (op, device) seen, most time first (then by op, device).
  std::vector<OpTypeTime> ByTime() const;
  // Every node's op time, summed; the steps' wall time, summed.
  double node_seconds() const { return node_seconds_; }
  double step_seconds() const { return step_seconds_; }

 private:
  std::vector<OpTypeTime> rows_;
  // Device ("CPU:0") -> op -> its row in rows_.
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, size_t>> row_of_;
  int steps_ = 0;
  double node_seconds_ = 0;
  double step_seconds_ = 0;
};

// The table: per (op, device), the nodes run per step, the time per step,
// the mean time per node, its share of all nodes' time and the cumulative
// share; the first `max_rows` rows (0: all), then one line for the rest.
std::string FormatOpProfile(const OpProfile& profile, int max_rows = 0);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOBS_OP_PROFILE_H_
