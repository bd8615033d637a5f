// JobRunner: one training job of a co-location experiment, in its own
// thread and its own Session — its own GPU devices and allocator stack over
// the shared SimGPU (its own memory limit), its own config and status files
// — so jobs contend for the device's capacity and compute engine as
// separate processes contend for a GPU. The harness steers it only through
// its config file.
//
//   MINITF_ASSIGN_OR_RETURN(auto job, JobRunner::Create(options));
//   job->Start(absl::Now());
//   ...
//   job->RequestStop();
//   job->Join();
//   for (const StepRecord& r : job->Records()) ...
//
// A step that fails (out of memory, say) ends the job; status() says why.
// Every step runs with a deadline at the job's end: a step still running
// then is cancelled and not counted, and the job ends normally.
// Thread-safe.
#ifndef MINITF_BENCH_HARNESS_JOB_RUNNER_H_
#define MINITF_BENCH_HARNESS_JOB_RUNNER_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bench/harness/job_model.h"
#include "bench/harness/job_trace.h"
#include "bench/harness/scenario.h"
#include "platform/mutex.h"
#include "session/direct_session.h"

namespace minitf {
class GPUDevice;
}  // namespace minitf

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
  double gpu_share = 0;       // the job's GPU busy share over the step
};

// The job's GPU now, read from another thread (the device timeline).
struct JobSample {
  int64_t device_bytes_in_use = 0;  // BFC chunk bytes, as TensorFlow counts them
  int64_t device_pool_bytes = 0;  // what the job holds of the GPU's capacity
  int64_t device_limit_bytes = 0;
  int64_t host_bytes_in_use = 0;  // VMem's host fallback
  absl::Duration gpu_busy;        // the job's kernels on the engine, so far
};

class JobRunner {
 public:
  struct Options {
    JobSpec spec;
    std::string simgpu_options;  // the experiment's SimGPU
    std::string platform;        // "" = CUDA when present, else SimGPU
    std::string config_file;     // watched by the job; written by the harness
    std::string status_file;     // written by the job
    double experiment_duration_s = 0;  // the job stops at this at the latest
    // Trace every step (JobTrace), keeping at most this many spans; 0: none.
    size_t max_trace_spans = 0;
    // How long initialising the variables may take (0: no bound).
    absl::Duration setup_timeout = absl::ZeroDuration();
  };

  // Builds the model and the session and initialises the variables.
  // Errors name the job; DEADLINE_EXCEEDED when the initialisation outlasts
  // setup_timeout.
  static absl::StatusOr<std::unique_ptr<JobRunner>> Create(const Options& options);
  ~JobRunner();  // Joins.

  // Runs the job's steps in a thread from its start time (relative to
  // `experiment_start`) until its steps or duration are done, the experiment
  // ends, or RequestStop. Once.
  void Start(absl::Time experiment_start);
  // Asks the job to stop after its current step. A job suspended by
  // perfControl 0 stays suspended until its config file raises the value.
  void RequestStop();
  // RequestStop, and cancels the step in flight (closing the session): an
  // interrupted experiment ends now, not at the job's next step boundary.
  // The cancelled step is not counted.
  void Interrupt();
  void Join();

  // Waits until the job's GPU config holds perfControl `value` (its config
  // file was rewritten after Create); DeadlineExceeded naming the job if it
  // has not within `timeout`.
  absl::Status AwaitPerfControl(int value, absl::Duration timeout) const;

  const JobSpec& spec() const { return options_.spec; }
  std::vector<StepRecord> Records() const;
  int64_t steps_done() const;
  bool finished() const;
  // OK, or the error that ended the job.
  absl::Status status() const;
  JobSample Sample() const;
  // The job's trace; null unless Options::max_trace_spans. REQUIRES: joined.
  const JobTrace* trace() const { return trace_.get(); }
  // The GPU's total device memory (the capacity jobs share).
  int64_t device_capacity_bytes() const;

 private:
  JobRunner(Options options, JobModel model, std::unique_ptr<DirectSession> session,
            GPUDevice* gpu);
  // One Run with `deadline`, traced when tracing is on.
  absl::Status RunStep(const std::vector<std::pair<std::string, Tensor>>& feeds, int64_t step,
                       absl::Time deadline);
  void Run();
  bool ShouldStop(int64_t steps, absl::Time now) const;
  // When the job must have stopped: its duration's end or the experiment's,
  // whichever is first (InfiniteFuture: neither is set).
  absl::Time End() const;

  const Options options_;
  absl::Time experiment_start_;  // set by Start, before the thread
  const JobModel model_;
  std::unique_ptr<DirectSession> session_;
  GPUDevice* const gpu_;  // the session's GPU; owned by it
  std::unique_ptr<JobTrace> trace_;  // used by the job's thread only
  std::thread thread_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> finished_{false};

  mutable Mutex mu_;
  CondVar stop_cv_;  // Signalled by RequestStop (wakes the wait for the start time).
  std::vector<StepRecord> records_ ABSL_GUARDED_BY(mu_);
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOB_RUNNER_H_
