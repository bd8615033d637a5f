// RunExperiment: one co-location experiment — optional solo baselines, then
// every job of the scenario together over the shared GPU while the timeline
// driver rewrites their config files — and what it measured.
//
//   ExperimentOptions options;
//   options.out_dir = "/tmp/run";
//   options.baseline = true;
//   MINITF_ASSIGN_OR_RETURN(ExperimentResult r, RunExperiment(scenario, options));
//   MINITF_RETURN_IF_ERROR(WriteReport(r, options.out_dir));   // report.h
//
// The jobs' config and status files live in out_dir/jobs ("<job>.config.json",
// "<job>.status.json"). When the experiment ends, a job its config file
// holds suspended (perfControl 0) is given perfControl 100 first, as a
// scheduler would, so it can reach its step boundary and stop.
//
// Time is bounded: each job's set-up (its graph, session and variables)
// must finish within the experiment's length, and each step runs with a
// deadline at the job's end (RunOptions::timeout_in_ms), so a step still
// running then is cancelled (not counted) and the experiment ends within
// one kernel's time of its planned end.
#ifndef MINITF_BENCH_HARNESS_EXPERIMENT_EXPERIMENT_H_
#define MINITF_BENCH_HARNESS_EXPERIMENT_EXPERIMENT_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench/harness/jobs/experiment_job.h"
#include "bench/harness/jobs/job_runner.h"
#include "bench/harness/jobs/job_trace.h"
#include "bench/harness/scenario/scenario.h"

namespace minitf::harness {

struct ExperimentOptions {
  std::string out_dir;  // created if missing
  // > 0: the scenario's time axis (start times, durations, the timeline) is
  // scaled so the experiment lasts this long.
  double seconds = 0;
  // Run each job alone first, for its solo throughput.
  bool baseline = false;
  // How long each solo run lasts; 0: the job's time in the experiment, at
  // most 15 s.
  double baseline_seconds = 0;
  // "" keeps each job's pacing policy; "antman", "precise" or "sms" sets every job's.
  std::string pacing;
  // "" keeps each job's stream priority; "high", "default" or "low" sets
  // every job's ("default" for all: the device serves jobs in arrival order).
  std::string stream_priority;
  // SimGPU options ("preempt_us=0,tflops=30") that replace the scenario's
  // values of those keys (OverrideSimGPUOptions).
  std::string simgpu_overrides;
  // "" performs the scenario's timeline; "antman" or "tgs" puts a local
  // coordinator (coordinator.h) in charge of the jobs' configs instead, in
  // closed loop, steering to keep the guarantee jobs at coordinator_target
  // of their solo step rate.
  std::string coordinator;
  double coordinator_target = 0.97;
  // Neither timeline nor coordinator: the jobs keep their starting settings.
  bool no_timeline = false;
  // Each job a `minitf job` process (job_process.h), the baselines too; the
  // coordinator, when there is one, a `minitf coordinator` process. On
  // SimGPU the processes share one device (the SimGPU option shared=).
  bool processes = false;
  // With `processes`, timing mode: the opportunistic jobs' kernels defer to
  // the guarantee jobs' (the SimGPU option defer=true in their processes):
  // each waits to join the device while a guarantee job has GPU work, as
  // AntMan's GPU operator manager holds an opportunistic job's operators.
  bool defer_opportunistic = false;
  // With `processes`: the opportunistic jobs are MPS clients at priority
  // level BELOW_NORMAL (CUDA_MPS_CLIENT_PRIORITY=1 in their environment;
  // SimGPU reads it under share=mps): the SMs go to the guarantee jobs'
  // kernels first.
  bool below_normal_opportunistic = false;
  // Spans kept per job for trace.json; 0: no trace.
  size_t max_trace_spans = 500000;
  // Where the progress line goes (null: nowhere). Rewritten in place with
  // '\r' when `progress_is_tty`, else one line every 5 s.
  std::ostream* progress = nullptr;
  bool progress_is_tty = false;
  // How often the device timeline is sampled.
  double sample_period_s = 0.1;
  // Polled during the baselines and the run: a non-empty answer (the
  // command line's is the signal's name, "SIGINT") ends the experiment
  // early as its planned end would — jobs stop at their next step boundary,
  // suspended ones are released — and marks the result interrupted. Null:
  // never.
  std::function<std::string()> interruption;
};

// `base` (a SimGPU option string) with the keys `overrides` gives replaced by
// its values and the others kept; the result is checked (ParseSimGPUOptions):
// InvalidArgument naming the bad key or value otherwise.
absl::StatusOr<std::string> OverrideSimGPUOptions(absl::string_view base,
                                                  absl::string_view overrides);

// The GPU and every job at one instant of the experiment.
struct DeviceSample {
  double time_s = 0;
  double utilisation = 0;  // busy share of the GPU's engine since the last sample
  std::vector<JobSample> jobs;  // in scenario order
};

// A timeline action as performed.
struct PerformedAction {
  double time_s = 0;  // when the file was written
  TimelineAction action;
};

// What the coordinator decided (ExperimentOptions::coordinator).
struct CoordinatorDecision {
  double time_s = 0;  // since the jobs' start
  std::string row;    // a row of coordinator.csv (DecisionCsvRow), time first
};

struct JobResult {
  JobSpec spec;
  std::vector<StepRecord> steps;
  absl::Status status;      // OK, or what ended the job (out of memory, say)
  double solo_steps_per_s = 0;  // 0: no baseline run
  double solo_gpu_share = 0;    // the baseline's GPU busy time / wall time
  absl::Status solo_status;     // the baseline run's outcome
  std::vector<TraceSpan> trace;
  int64_t trace_dropped_steps = 0;
};

struct ExperimentResult {
  Scenario scenario;  // as run (scaled, pacing overridden)
  double wall_s = 0;  // from the jobs' start to the last one's stop
  int64_t capacity_bytes = 0;  // the GPU's memory
  std::vector<JobResult> jobs;  // in scenario order
  std::vector<DeviceSample> timeline;
  std::vector<PerformedAction> actions;
  std::string coordinator;  // its policy; "": the scenario's timeline ran
  std::vector<CoordinatorDecision> decisions;
  // The jobs ran as processes (ExperimentOptions::processes).
  bool processes = false;
  // The opportunistic jobs deferred to the guarantee jobs
  // (ExperimentOptions::defer_opportunistic).
  bool defer_opportunistic = false;
  // The opportunistic jobs were BELOW_NORMAL MPS clients
  // (ExperimentOptions::below_normal_opportunistic).
  bool below_normal_opportunistic = false;
  // A coordinator process that ended before the experiment did: how and
  // when ("was killed by SIGKILL at 12.3 s"); "" otherwise.
  std::string coordinator_ended;
  // Processes on a shared SimGPU: the device memory still held once every
  // job had ended (0 unless something leaked); -1 when not measured.
  int64_t device_bytes_after_jobs = -1;
  // Set when ExperimentOptions::interruption ended the run early: its
  // answer, and when (seconds from the jobs' start; 0 before it).
  std::string interrupted_by;
  double interrupted_at_s = 0;

  bool interrupted() const { return !interrupted_by.empty(); }
};

// The scenario with its time axis scaled to last `seconds` (> 0).
Scenario ScaleScenario(Scenario scenario, double seconds);

// Errors name the job or file at fault: a job that cannot be built or set
// up in time, a config file that cannot be written. A job failing while it
// runs is not an error: it is reported in its JobResult.
absl::StatusOr<ExperimentResult> RunExperiment(const Scenario& scenario,
                                               const ExperimentOptions& options);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_EXPERIMENT_EXPERIMENT_H_
