// ExperimentJob: one job of a co-location experiment as the experiment
// (experiment.h) drives it, whichever way it runs: a thread of this process
// over this process's devices (JobRunner, job_runner.h), or a `minitf job`
// process of its own (JobProcess, job_process.h). The experiment steers a
// job only through its config file; this is how it starts, stops and reads
// it.
#ifndef MINITF_BENCH_HARNESS_JOBS_EXPERIMENT_JOB_H_
#define MINITF_BENCH_HARNESS_JOBS_EXPERIMENT_JOB_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "bench/harness/jobs/job_trace.h"

namespace minitf::harness {

// What one finished step measured (from the job's GPUStatistics samples).
struct StepRecord {
  double time_s = 0;          // the step's end, seconds since the experiment began
  int64_t step = 0;           // 1, 2, ...
  double step_ms = 0;         // the step's wall time (Run to Run, sleeps included)
  int64_t device_bytes = 0;   // device peak during the step (BFC chunk bytes)
  int64_t host_bytes = 0;     // host (VMem) peak during the step (chunk bytes)
  int64_t limit_bytes = 0;    // the device memory limit the step ran under
  int perf_control = 100;
  double gpu_share = 0;       // the job's GPU busy time / step_ms
};

// The job's GPU now, read from another thread (the device timeline).
struct JobSample {
  int64_t device_bytes_in_use = 0;  // BFC chunk bytes, as TensorFlow counts them
  int64_t device_pool_bytes = 0;  // what the job holds of the GPU's capacity
  int64_t device_limit_bytes = 0;
  int64_t host_bytes_in_use = 0;  // VMem's host fallback
  absl::Duration gpu_busy;        // the job's kernels on the engine, so far
  // The perfControl the job's GPU holds now, whoever set it (the timeline or
  // a coordinator); unset before the job has said.
  std::optional<int> perf_control;
};

class ExperimentJob {
 public:
  virtual ~ExperimentJob() = default;

  // Runs the job's steps from its start time (relative to
  // `experiment_start`) until its steps or duration are done, the
  // experiment ends, or a stop. Once.
  virtual void Start(absl::Time experiment_start) = 0;
  // Asks the job to stop after its current step. A job suspended by
  // perfControl 0 stays suspended until its config file raises the value.
  virtual void RequestStop() = 0;
  // Stops the job now, cancelling the step in flight (not counted).
  virtual void Interrupt() = 0;
  // Waits until the job has stopped.
  virtual void Join() = 0;
  // Waits until the job's GPU config holds perfControl `value` (its config
  // file was rewritten after set-up); DeadlineExceeded naming the job if it
  // has not within `timeout`.
  virtual absl::Status AwaitPerfControl(int value, absl::Duration timeout) const = 0;

  virtual std::vector<StepRecord> Records() const = 0;
  virtual int64_t steps_done() const = 0;
  virtual bool finished() const = 0;
  // OK, or what ended the job (an error, or its process killed).
  virtual absl::Status status() const = 0;
  virtual JobSample Sample() const = 0;
  // The job's trace (empty when not traced). REQUIRES: joined.
  virtual std::vector<TraceSpan> TraceSpans() const = 0;
  virtual int64_t TraceDroppedSteps() const = 0;
  // The GPU's total device memory (the capacity jobs share).
  virtual int64_t device_capacity_bytes() const = 0;
};

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOBS_EXPERIMENT_JOB_H_
