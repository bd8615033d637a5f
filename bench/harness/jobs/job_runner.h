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
// Each step first waits the job's input_ms on the host (its input
// pipeline), with no GPU work, then runs; a stop ends that wait at once.
// A step that fails (out of memory, say) ends the job; status() says why.
// Every step runs with a deadline at the job's end: a step still running
// then is cancelled and not counted, and the job ends normally.
// Thread-safe.
#ifndef MINITF_BENCH_HARNESS_JOBS_JOB_RUNNER_H_
#define MINITF_BENCH_HARNESS_JOBS_JOB_RUNNER_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bench/harness/jobs/experiment_job.h"
#include "bench/harness/jobs/job_model.h"
#include "bench/harness/jobs/job_trace.h"
#include "bench/harness/scenario/scenario.h"
#include "platform/mutex.h"
#include "session/direct_session.h"

namespace minitf {
class GPUDevice;
}  // namespace minitf

namespace minitf::harness {

class JobRunner final : public ExperimentJob {
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
  ~JobRunner() override;  // Joins.

  // Runs the job's steps in a thread from its start time (relative to
  // `experiment_start`) until its steps or duration are done, the experiment
  // ends, or RequestStop. Once.
  void Start(absl::Time experiment_start) override;
  // Asks the job to stop after its current step. A job suspended by
  // perfControl 0 stays suspended until its config file raises the value.
  void RequestStop() override;
  // RequestStop, and cancels the step in flight (closing the session): an
  // interrupted experiment ends now, not at the job's next step boundary.
  // The cancelled step is not counted.
  void Interrupt() override;
  void Join() override;

  // Waits until the job's GPU config holds perfControl `value` (its config
  // file was rewritten after Create); DeadlineExceeded naming the job if it
  // has not within `timeout`.
  absl::Status AwaitPerfControl(int value, absl::Duration timeout) const override;

  const JobSpec& spec() const { return options_.spec; }
  std::vector<StepRecord> Records() const override;
  int64_t steps_done() const override;
  bool finished() const override;
  // OK, or the error that ended the job.
  absl::Status status() const override;
  JobSample Sample() const override;
  // The job's trace; null unless Options::max_trace_spans. REQUIRES: joined.
  const JobTrace* trace() const { return trace_.get(); }
  std::vector<TraceSpan> TraceSpans() const override;
  int64_t TraceDroppedSteps() const override;
  // The GPU's total device memory (the capacity jobs share).
  int64_t device_capacity_bytes() const override;

 private:
  JobRunner(Options options, JobModel model, std::unique_ptr<DirectSession> session,
            GPUDevice* gpu);
  // One Run with `deadline`, traced when tracing is on.
  absl::Status RunStep(const std::vector<std::pair<std::string, Tensor>>& feeds, int64_t step,
                       absl::Time deadline);
  void Run();
  // Waits spec.input_ms, or less when stopped or when `end` comes first.
  // True when the input is ready and the job may run its step.
  bool AwaitInput(absl::Time end);
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
  // Signalled by RequestStop (wakes the waits for the start time and for a
  // step's input).
  CondVar stop_cv_;
  std::vector<StepRecord> records_ ABSL_GUARDED_BY(mu_);
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOBS_JOB_RUNNER_H_
