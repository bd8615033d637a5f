// The experiment's outputs (docs/EXPERIMENTS.md describes each file):
//
//   <job>.steps.csv      time_s,step,step_ms,device_bytes,host_bytes,
//                        limit_bytes,perf_control,gpu_share
//   device_timeline.csv  time_s,utilisation, then per job
//                        <job>_device_bytes,<job>_pool_bytes,<job>_host_bytes
//   throughput.csv       time_s, then per job its steps/s in that bin
//   actions.csv          time_s,job,maxDeviceMem,perfControl
//   summary.json         the scenario as run, per-job figures, per-phase
//                        throughput, the actions performed
//   table.txt            the table printed at the end
//
// trace.json and the plots come from chrome_trace.h and plots.h.
#ifndef MINITF_BENCH_HARNESS_REPORT_REPORT_H_
#define MINITF_BENCH_HARNESS_REPORT_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bench/harness/experiment/experiment.h"
#include "bench/harness/experiment/metrics.h"

namespace minitf::harness {

// Throughput of every job between two consecutive timeline actions.
struct Phase {
  double from_s = 0;
  double to_s = 0;
  std::string label;  // the action(s) that began it ("start" for the first)
  std::vector<double> steps_per_s;  // per job, in scenario order
  std::vector<double> vs_solo;      // per job; 0 without a baseline
};

// Steps/s of every job over [from_s, to_s), a row of throughput.csv.
struct ThroughputBin {
  double from_s = 0;
  double to_s = 0;
  std::vector<double> steps_per_s;  // per job, in scenario order
};

std::vector<JobSummary> Summaries(const ExperimentResult& result);

// About 60 bins of equal width (at least 1 s, fewer for a short run) that
// together span the run exactly.
std::vector<ThroughputBin> ThroughputBins(const ExperimentResult& result);
std::vector<Phase> Phases(const ExperimentResult& result);

// The table printed at the end: one row per job, then the phases.
std::string FormatTable(const ExperimentResult& result);

// Before a run: creates `dir`, removes what an earlier run left there (the
// files above, trace.json, the plots and their scripts, the steps files
// its summary lists; nothing else) and writes a summary.json whose status
// is "running", so no earlier run's outputs pass for this one's, even if
// this one is killed. An error names the file.
absl::Status BeginReport(const std::string& dir, const std::string& scenario_name);
// After a run that failed before it measured anything: summary.json's
// status becomes "failed", with the error.
absl::Status AbandonReport(const std::string& dir, const std::string& scenario_name,
                           const absl::Status& error);

// Writes every file above into `dir`; summary.json's "status" is
// "complete" or "interrupted" (with "interrupted_by", "interrupted_at_s").
// An error names the file.
absl::Status WriteReport(const ExperimentResult& result, const std::string& dir);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_REPORT_REPORT_H_
