// JobProcess: one job of a co-location experiment as a `minitf job` process
// of its own (`minitf colocate --processes`), as a cluster runs each job in
// a container: one job's crash ends only that job, and on CUDA the
// processes share the GPU as containers do (on SimGPU, a shared device:
// sim_gpu_shared_device.h).
//
//   MINITF_ASSIGN_OR_RETURN(std::unique_ptr<JobProcess> job, JobProcess::Create(options));
//   job->Start(absl::Now());   // the process has set up; it starts its steps
//   ...
//   job->Join();
//
// The process gets its job as a one-job scenario file, in dir:
//   <job>.run.json      the job as the experiment runs it (job_spec_json.h)
//   <job>.start         the experiment's start, written by Start
//   <job>.log           the process's output
//   <job>.summary.json, <job>.steps.csv, <job>.trace.json   its outputs
// and follows its config file and writes its statistics file, as any
// `minitf job`; it registers itself for a coordinator (<job>.job.json).
// While it runs, Sample and steps_done read its statistics file; once it
// has ended, Records and status read its outputs and its exit status. A
// process that dies (SIGKILL, say) ends as a failed job whose status names
// the signal; what it measured up to its last second is kept.
//
// The process takes its config file's perfControl before its first step,
// so AwaitPerfControl has nothing to wait for. Thread-safe.
#ifndef MINITF_BENCH_HARNESS_JOBS_JOB_PROCESS_H_
#define MINITF_BENCH_HARNESS_JOBS_JOB_PROCESS_H_

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/harness/jobs/experiment_job.h"
#include "bench/harness/scenario/scenario.h"
#include "platform/mutex.h"

namespace minitf::harness {

// A child process running this program (`minitf`) with `args`, its output
// to `log_file`, in a process group of its own (a terminal's Ctrl-C goes to
// the parent, which stops its children itself). The environment is this
// process's, without the variables `drop_env` names, with `set_env`'s
// ("NAME=value", in place of an inherited NAME).
absl::StatusOr<pid_t> SpawnMinitf(const std::vector<std::string>& args,
                                  const std::string& log_file,
                                  const std::vector<std::string>& drop_env,
                                  const std::vector<std::string>& set_env = {});
// How a reaped child ended, as a sentence ("exited with status 1", "was
// killed by SIGKILL").
std::string DescribeExit(int wait_status);

class JobProcess final : public ExperimentJob {
 public:
  struct Options {
    Scenario scenario;  // the experiment as run: its device and duration
    JobSpec spec;       // the job as run
    std::string dir;    // where its files go
    std::string config_file;
    std::string status_file;
    bool trace = false;
    // Set in its environment, "NAME=value" (CUDA_MPS_CLIENT_PRIORITY=1).
    std::vector<std::string> env;
    // How long the process may take to set up.
    absl::Duration setup_timeout = absl::Seconds(60);
  };

  // Starts the process and waits until it has set up. Errors name the job:
  // its set-up's error (from its summary or log) when it ends first,
  // DeadlineExceeded when it outlasts setup_timeout (it is then killed).
  static absl::StatusOr<std::unique_ptr<JobProcess>> Create(const Options& options);
  ~JobProcess() override;  // Kills the process if it still runs.

  void Start(absl::Time experiment_start) override;
  // The process stops at its own end; Join waits for that.
  void RequestStop() override;
  // SIGTERM: the process cancels its step and writes what it measured.
  void Interrupt() override;
  // Waits for the process; one still running 30 s after its planned end
  // gets SIGTERM, and SIGKILL 10 s later.
  void Join() override;
  absl::Status AwaitPerfControl(int value, absl::Duration timeout) const override;

  std::vector<StepRecord> Records() const override;
  int64_t steps_done() const override;
  bool finished() const override;
  absl::Status status() const override;
  JobSample Sample() const override;
  std::vector<TraceSpan> TraceSpans() const override;
  int64_t TraceDroppedSteps() const override;
  int64_t device_capacity_bytes() const override { return capacity_bytes_; }

  pid_t pid() const { return pid_; }

 private:
  JobProcess(Options options, pid_t pid, int64_t capacity_bytes);
  // Reaps the process if it has ended; whether it has.
  bool Reap() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Takes its step count and GPU figures from its statistics file, when the
  // file has changed since last read.
  void ReadStatus() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The perfControl in the job's config file (the timeline's or a
  // coordinator's), into last_sample_.
  void ReadConfig() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reads its outputs once it has ended.
  void ReadOutputs() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string File(absl::string_view suffix) const;

  const Options options_;
  const pid_t pid_;
  const int64_t capacity_bytes_;

  mutable Mutex mu_;
  absl::Time start_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  mutable bool reaped_ ABSL_GUARDED_BY(mu_) = false;
  mutable int wait_status_ ABSL_GUARDED_BY(mu_) = 0;
  mutable bool interrupted_ ABSL_GUARDED_BY(mu_) = false;
  mutable bool outputs_read_ ABSL_GUARDED_BY(mu_) = false;
  mutable std::vector<StepRecord> records_ ABSL_GUARDED_BY(mu_);
  mutable absl::Status status_ ABSL_GUARDED_BY(mu_);
  mutable std::vector<TraceSpan> trace_ ABSL_GUARDED_BY(mu_);
  mutable int64_t trace_dropped_ ABSL_GUARDED_BY(mu_) = 0;
  mutable JobSample last_sample_ ABSL_GUARDED_BY(mu_);
  mutable int64_t last_steps_ ABSL_GUARDED_BY(mu_) = 0;
  // When the statistics file last read was written.
  mutable std::filesystem::file_time_type status_written_ ABSL_GUARDED_BY(mu_);
  mutable std::filesystem::file_time_type config_written_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOBS_JOB_PROCESS_H_
