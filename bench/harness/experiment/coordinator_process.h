// CoordinatorProcess: a `minitf coordinator` process over an experiment's
// jobs directory (`minitf colocate --processes --coordinator POLICY`), so
// that killing it leaves the jobs running with their last settings, as
// AntMan's deployment does.
//
//   MINITF_ASSIGN_OR_RETURN(auto c, CoordinatorProcess::Start(dir, "antman", 0.97, 0.5, bytes));
//   ... the experiment runs; c->Ended() says if it died ...
//   c->Stop();
//   c->ReadDecisions(start, &result.decisions, &result.actions);
//
// Its decision log is DIR/coordinator.csv (an earlier run's is removed),
// its output DIR/coordinator.log. Not thread-safe.
#ifndef MINITF_BENCH_HARNESS_EXPERIMENT_COORDINATOR_PROCESS_H_
#define MINITF_BENCH_HARNESS_EXPERIMENT_COORDINATOR_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bench/harness/experiment/experiment.h"

namespace minitf::harness {

class CoordinatorProcess {
 public:
  // Starts it with `policy`, `target` and a round every `interval_s` over
  // the GPU memory `capacity_bytes`.
  static absl::StatusOr<std::unique_ptr<CoordinatorProcess>> Start(const std::string& jobs_dir,
                                                                   const std::string& policy,
                                                                   double target,
                                                                   double interval_s,
                                                                   int64_t capacity_bytes);
  ~CoordinatorProcess();  // Stop.
  CoordinatorProcess(const CoordinatorProcess&) = delete;
  CoordinatorProcess& operator=(const CoordinatorProcess&) = delete;

  // How it ended ("was killed by SIGKILL"), once it has; "" while it runs.
  std::string Ended();
  // SIGTERM, then SIGKILL if it has not ended within 10 s.
  void Stop();
  // Its log read back, each decision timed from `origin` (the experiment's
  // start); the settings it changed also as actions.
  void ReadDecisions(absl::Time origin, std::vector<CoordinatorDecision>* decisions,
                     std::vector<PerformedAction>* actions) const;

 private:
  CoordinatorProcess(pid_t pid, std::string log, absl::Time started)
      : pid_(pid), log_(std::move(log)), started_(started) {}

  const pid_t pid_;
  const std::string log_;
  const absl::Time started_;
  std::string ended_;
};

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_EXPERIMENT_COORDINATOR_PROCESS_H_
