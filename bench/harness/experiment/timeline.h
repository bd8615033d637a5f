// TimelineDriver: performs a scenario's timeline the way an external
// scheduler would — by rewriting each job's GPU config file (atomically:
// a temporary file renamed over it) — never by calling into the job.
//
//   TimelineDriver driver(scenario.timeline, {{"opportunistic", "/out/opportunistic.gpu.json"}});
//   MINITF_RETURN_IF_ERROR(driver.WriteInitial("opportunistic", initial));
//   while (running) {
//     for (const TimelineAction& a : driver.Advance(elapsed_seconds)) log(a);
//   }
//
// Every write holds the job's full settings so far (each action merges into
// them), so the file alone says what is in force. Not thread-safe: one
// driver thread.
#ifndef MINITF_BENCH_HARNESS_EXPERIMENT_TIMELINE_H_
#define MINITF_BENCH_HARNESS_EXPERIMENT_TIMELINE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bench/harness/scenario/scenario.h"
#include "session/antman/gpu_config.h"

namespace minitf::harness {

class TimelineDriver {
 public:
  // `actions` sorted by time (as Scenario keeps them); `config_paths` maps
  // each job name to its config file.
  TimelineDriver(std::vector<TimelineAction> actions,
                 std::map<std::string, std::string> config_paths);

  // Writes `job`'s first config file, before the job starts.
  absl::Status WriteInitial(const std::string& job, const GPUConfig& config);

  // Performs every action due by `elapsed_s` not performed yet, in order,
  // and returns them. A write that fails is returned as an error naming the
  // file; the actions before it stay performed.
  absl::StatusOr<std::vector<TimelineAction>> Advance(double elapsed_s);

  // Performs `action` now, outside the timeline (the harness releasing a
  // suspended job at the end, say). An error names the file.
  absl::Status Apply(const TimelineAction& action);

  // Whether every action has been performed.
  bool done() const { return next_ >= actions_.size(); }
  // When the next action is due, in seconds from the start. REQUIRES: !done().
  double NextAt() const { return actions_[next_].at_s; }

  // What `job`'s file holds now.
  const GPUConfig& config(const std::string& job) const { return configs_.at(job); }

 private:
  absl::Status Write(const std::string& job);

  const std::vector<TimelineAction> actions_;
  const std::map<std::string, std::string> config_paths_;
  std::map<std::string, GPUConfig> configs_;
  size_t next_ = 0;
};

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_EXPERIMENT_TIMELINE_H_
