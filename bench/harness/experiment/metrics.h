// What the harness computes from a job's step records: throughput (steady,
// over a window, per timeline phase) and the figures of the final table.
#ifndef MINITF_BENCH_HARNESS_EXPERIMENT_METRICS_H_
#define MINITF_BENCH_HARNESS_EXPERIMENT_METRICS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "bench/harness/jobs/job_runner.h"

namespace minitf::harness {

// Steps per second after the first step (which builds the executors):
// (n - 1) / (end of step n - end of step 1). 0 with fewer than two steps.
double SteadyStepsPerSecond(const std::vector<StepRecord>& steps);

// Steps that ended in [from_s, to_s), per second of that window.
double StepsPerSecondBetween(const std::vector<StepRecord>& steps, double from_s, double to_s);

// The figures of one job in the final table and summary.json.
struct JobSummary {
  std::string name;
  std::string role;
  int64_t steps = 0;
  double steps_per_s = 0;       // steady, over the whole run
  double examples_per_s = 0;    // steps_per_s * batch size
  double solo_steps_per_s = 0;  // 0: no baseline
  double vs_solo = 0;           // steps_per_s / solo_steps_per_s; 0: no baseline
  double gpu_share = 0;         // GPU busy time / wall time over its steps
  // From the baseline (0 without one): the job's GPU share alone.
  double solo_gpu_share = 0;
  // An opportunistic job's GPU share as a fraction of the GPU time the
  // guarantee jobs leave idle when alone (1 - their solo shares together):
  // how much of what it could take without slowing them it took. 0 for a
  // guarantee job, or without a baseline.
  double harvest = 0;
  int64_t peak_device_bytes = 0;
  int64_t peak_host_bytes = 0;
  int64_t host_fallback_steps = 0;  // steps that used host memory
  std::string failure;              // "" or what ended the job
};

JobSummary Summarize(const JobSpec& spec, const std::vector<StepRecord>& steps,
                     double solo_steps_per_s, const std::string& failure);

// GPU busy time / wall time over `steps` (each step's gpu_share weighted by
// its duration); 0 without steps.
double GpuShare(const std::vector<StepRecord>& steps);

// The fraction of GPU time the guarantee jobs leave idle when each runs
// alone: 1 - the sum of their solo GPU shares, at least 0. 1 without
// guarantee jobs; -1 when a guarantee job has no baseline.
double GuaranteeSoloIdle(const std::vector<JobSummary>& jobs);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_EXPERIMENT_METRICS_H_
