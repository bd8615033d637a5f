#include "bench/harness/jobs/job_runner.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "device/gpu/gpu_device.h"
#include "platform/logging.h"
#include "platform/status_macros.h"
#include "session/antman/gpu_resource_management.h"
#include "session/antman/gpu_statistics.h"

namespace minitf::harness {
namespace {

absl::Status Named(const std::string& job, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("job '", job, "': ", status.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<JobRunner>> JobRunner::Create(const Options& options) {
  const JobSpec& spec = options.spec;
  MINITF_ASSIGN_OR_RETURN(JobModel model, BuildJobModel(spec));
  SessionOptions session_options;
  GPUOptions& gpu = session_options.config.gpu_options;
  gpu.simgpu_options = options.simgpu_options;
  gpu.platform = options.platform;
  gpu.private_allocators = true;
  gpu.memory_limit_bytes = spec.memory_limit;
  gpu.stream_priority = JobStreamPriority(spec);
  // The models pin every node to the GPU; an op without a kernel for the
  // platform (no CUDA kernel, say) runs on the CPU instead of failing.
  session_options.config.allow_soft_placement = true;
  // Two threads each: jobs share the machine's cores as well as the GPU.
  session_options.config.inter_op_parallelism_threads = 2;
  session_options.config.intra_op_parallelism_threads = 2;
  session_options.gpu_config_file = options.config_file;
  session_options.gpu_status_file = options.status_file;
  session_options.pacing_policy = spec.pacing;
  absl::StatusOr<std::unique_ptr<DirectSession>> session = DirectSession::New(session_options);
  if (!session.ok()) return Named(spec.name, session.status());
  MINITF_RETURN_IF_ERROR(Named(spec.name, (*session)->Create(model.graph)));
  RunOptions init_options;
  if (options.setup_timeout > absl::ZeroDuration()) {
    init_options.timeout_in_ms =
        std::max<int64_t>(1, absl::ToInt64Milliseconds(options.setup_timeout));
  }
  absl::Status init = absl::OkStatus();
  if (!model.init.empty()) {
    init = (*session)->Run(init_options, {}, {}, {model.init}, nullptr, nullptr);
  }
  if (init.code() == absl::StatusCode::kDeadlineExceeded) {
    return absl::DeadlineExceededError(absl::StrCat(
        "job '", spec.name, "': initialising the variables took longer than the ",
        absl::FormatDuration(options.setup_timeout), " the experiment lasts"));
  }
  MINITF_RETURN_IF_ERROR(Named(spec.name, init));
  GPUDevice* job_gpu = nullptr;
  for (Device* d : (*session)->ListDevices()) {
    if (job_gpu == nullptr) job_gpu = dynamic_cast<GPUDevice*>(d);
  }
  if (job_gpu == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("job '", spec.name, "': the session has no GPU device"));
  }
  return std::unique_ptr<JobRunner>(
      new JobRunner(options, std::move(model), *std::move(session), job_gpu));
}

JobRunner::JobRunner(Options options, JobModel model, std::unique_ptr<DirectSession> session,
                     GPUDevice* gpu)
    : options_(std::move(options)),
      model_(std::move(model)),
      session_(std::move(session)),
      gpu_(gpu) {}

JobRunner::~JobRunner() {
  RequestStop();
  Join();
}

void JobRunner::Start(absl::Time experiment_start) {
  experiment_start_ = experiment_start;
  if (options_.max_trace_spans > 0) {
    trace_ = std::make_unique<JobTrace>(experiment_start_, options_.max_trace_spans);
    gpu_->gpu_op_manager()->RecordSlots(true);
  }
  thread_ = std::thread([this] { Run(); });
}

void JobRunner::RequestStop() {
  stop_requested_.store(true);
  MutexLock lock(&mu_);
  stop_cv_.SignalAll();
}

void JobRunner::Interrupt() {
  RequestStop();
  // Close cancels the Run in flight and waits for it to return.
  absl::Status closed = session_->Close();
  if (!closed.ok()) LOG(WARNING, "job '{}': closing its session: {}", options_.spec.name, closed);
}

void JobRunner::Join() {
  if (thread_.joinable()) thread_.join();
}

absl::Time JobRunner::End() const {
  const JobSpec& spec = options_.spec;
  absl::Time end = absl::InfiniteFuture();
  if (spec.duration_s > 0) {
    end = std::min(end, experiment_start_ + absl::Seconds(spec.start_s + spec.duration_s));
  }
  if (options_.experiment_duration_s > 0) {
    end = std::min(end, experiment_start_ + absl::Seconds(options_.experiment_duration_s));
  }
  return end;
}

bool JobRunner::ShouldStop(int64_t steps, absl::Time now) const {
  if (stop_requested_.load()) return true;
  if (options_.spec.steps > 0 && steps >= options_.spec.steps) return true;
  return now >= End();
}

void JobRunner::Run() {
  const absl::Time start =
      experiment_start_ + absl::Seconds(options_.spec.start_s);
  {
    MutexLock lock(&mu_);
    while (!stop_requested_.load() && absl::Now() < start) {
      stop_cv_.WaitWithTimeout(&mu_, start - absl::Now());
    }
  }
  const auto feeds = model_.feeds;
  const absl::Time end = End();
  int64_t steps = 0;
  absl::Time last = absl::Now();
  absl::Duration last_busy = gpu_->ComputeBusyTime();
  while (!ShouldStop(steps, absl::Now())) {
    if (!AwaitInput(end)) break;
    absl::Status s = RunStep(feeds, steps + 1, end);
    const absl::Time now = absl::Now();
    // The job's time ran out in the middle of the step: the step was
    // cancelled, and the job ends as it would have at the step's end.
    if (s.code() == absl::StatusCode::kDeadlineExceeded && now >= end) break;
    // Interrupted: the step in flight was cancelled; the job ends here.
    if (s.code() == absl::StatusCode::kCancelled && stop_requested_.load()) break;
    if (!s.ok()) {
      LOG(WARNING, "job '{}' failed at step {}: {}", options_.spec.name, steps + 1, s);
      MutexLock lock(&mu_);
      status_ = Named(options_.spec.name, s);
      break;
    }
    ++steps;
    StepRecord r;
    r.time_s = absl::ToDoubleSeconds(now - experiment_start_);
    r.step = steps;
    r.step_ms = absl::ToDoubleMilliseconds(now - last);
    // The GPU share over the step's own time, Run to Run: the statistics'
    // sample is taken before the boundary's pacing sleep or suspension, so
    // it covers another span.
    const absl::Duration busy = gpu_->ComputeBusyTime();
    r.gpu_share = now > last ? std::min(1.0, absl::FDivDuration(busy - last_busy, now - last)) : 0;
    last_busy = busy;
    last = now;
    if (GPUStatisticsState* stats = GPUStatistics::StateOf(session_->action_states())) {
      const std::vector<GPUMemorySample> samples = stats->LastSamples();
      if (!samples.empty()) {
        r.device_bytes = samples[0].device_peak_bytes;
        r.host_bytes = samples[0].host_peak_bytes;
        r.limit_bytes = samples[0].device_limit_bytes;
        r.perf_control = samples[0].perf_control;
      }
    }
    MutexLock lock(&mu_);
    records_.push_back(r);
  }
  finished_.store(true);
}

bool JobRunner::AwaitInput(absl::Time end) {
  if (options_.spec.input_ms <= 0) return true;
  const absl::Time ready = absl::Now() + absl::Milliseconds(options_.spec.input_ms);
  const absl::Time until = std::min(ready, end);
  MutexLock lock(&mu_);
  while (!stop_requested_.load() && absl::Now() < until) {
    stop_cv_.WaitWithTimeout(&mu_, until - absl::Now());
  }
  return !stop_requested_.load() && ready <= end;
}

absl::Status JobRunner::RunStep(const std::vector<std::pair<std::string, Tensor>>& feeds,
                                int64_t step, absl::Time deadline) {
  RunOptions run_options;
  if (deadline != absl::InfiniteFuture()) {
    // Rounded up, so a step that ends in time is never cut short.
    run_options.timeout_in_ms = std::max<int64_t>(
        1, absl::ToInt64Milliseconds(absl::Ceil(deadline - absl::Now(), absl::Milliseconds(1))));
  }
  std::vector<Tensor> out;
  if (trace_ == nullptr) {
    return session_->Run(run_options, feeds, {}, {model_.train}, &out, nullptr);
  }
  run_options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  const absl::Time start = absl::Now();
  absl::Status s =
      session_->Run(run_options, feeds, {}, {model_.train}, &out, &metadata);
  const absl::Time finish = absl::Now();
  BoundaryIdle idle;
  if (const GPUResourceState* resources =
          GPUResourceManagement::StateOf(session_->action_states())) {
    const GPUResourceState::Status status = resources->GetStatus();
    idle.sleep = status.last_sleep;
    idle.suspension = status.last_suspension;
  }
  trace_->AddStep(step, start, finish, metadata.step_stats, gpu_->gpu_op_manager()->TakeSlots(),
                  idle);
  return s;
}

absl::Status JobRunner::AwaitPerfControl(int value, absl::Duration timeout) const {
  const GPUResourceState* resources = GPUResourceManagement::StateOf(session_->action_states());
  if (resources == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("job '", options_.spec.name, "' has no GPU resource management"));
  }
  const absl::Time deadline = absl::Now() + timeout;
  while (resources->perf_control() != value) {
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "job '", options_.spec.name, "' did not take perfControl ", value, " from '",
          options_.config_file, "' within ", absl::FormatDuration(timeout)));
    }
    absl::SleepFor(absl::Milliseconds(1));
  }
  return absl::OkStatus();
}

JobSample JobRunner::Sample() const {
  JobSample sample;
  GPUAllocatorStack* stack = gpu_->allocator_stack();
  const AllocatorStats device = stack->device_bfc()->GetStats().value_or(AllocatorStats());
  sample.device_bytes_in_use = device.bytes_in_use;
  sample.device_pool_bytes = device.bytes_reserved;
  sample.device_limit_bytes =
      static_cast<int64_t>(stack->device_bfc()->GetPoolStats().memory_limit);
  if (VMemAllocator* vmem = stack->vmem(); vmem != nullptr) {
    sample.host_bytes_in_use = vmem->GetVMemStats().host_bytes_in_use;
  }
  sample.gpu_busy = gpu_->ComputeBusyTime();
  if (const GPUResourceState* resources = GPUResourceManagement::StateOf(session_->action_states());
      resources != nullptr) {
    sample.perf_control = resources->perf_control();
  }
  return sample;
}

std::vector<TraceSpan> JobRunner::TraceSpans() const {
  return trace_ != nullptr ? trace_->spans() : std::vector<TraceSpan>();
}

int64_t JobRunner::TraceDroppedSteps() const {
  return trace_ != nullptr ? trace_->dropped_steps() : 0;
}

int64_t JobRunner::device_capacity_bytes() const {
  return gpu_->executor()->GetDeviceDescription().total_memory;
}

std::vector<StepRecord> JobRunner::Records() const {
  MutexLock lock(&mu_);
  return records_;
}

int64_t JobRunner::steps_done() const {
  MutexLock lock(&mu_);
  return static_cast<int64_t>(records_.size());
}

bool JobRunner::finished() const { return finished_.load(); }

absl::Status JobRunner::status() const {
  MutexLock lock(&mu_);
  return status_;
}

}  // namespace minitf::harness
