#include "session/antman/gpu_resource_management.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "platform/env.h"
#include "platform/logging.h"
#include "session/antman/gpu_usage_adjustment.h"
#include "session/session_options.h"

namespace minitf {

GPUResourceState::GPUResourceState(std::string config_file, PacingPolicy policy,
                                   const DeviceMgr* device_mgr, FileListener* listener)
    : config_file_(std::move(config_file)), policy_(policy), listener_(listener) {
  {
    MutexLock lock(&step_mu_);
    for (Device* device : device_mgr->ListDevices()) {
      auto* gpu = dynamic_cast<GPUDevice*>(device);
      if (gpu == nullptr) continue;
      ManagedGPU& managed = gpus_.emplace_back(gpu, policy_);
      managed.last_busy = gpu->ComputeBusyTime();
      gpu->gpu_op_manager()->SetPolicy(policy_);
      managed.limit_in_force =
          static_cast<int64_t>(gpu->allocator_stack()->device_bfc()->GetPoolStats().memory_limit);
    }
  }
  absl::StatusOr<int64_t> id =
      listener_->Register(config_file_, [this](const FileEvent& event) { OnFileEvent(event); });
  if (!id.ok()) {
    LOG(ERROR, "GPU config '{}' cannot be watched, the job runs unmanaged: {}", config_file_,
        id.status());
    return;
  }
  listener_id_ = *id;
  LOG(INFO, "GPU resource management: watching '{}' ({} pacing)", config_file_,
      PacingPolicyName(policy_));
  const std::filesystem::path dir = std::filesystem::path(config_file_).parent_path();
  std::error_code error;
  if (!dir.empty() && !std::filesystem::is_directory(dir, error)) {
    LOG(INFO, "GPU config '{}': directory '{}' does not exist yet; the file is taken once it does",
        config_file_, dir.string());
  }
}

GPUResourceState::~GPUResourceState() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    changed_.SignalAll();
  }
  // Returns once no callback of ours runs, so `this` is no longer used.
  if (listener_id_ >= 0) listener_->Unregister(listener_id_);
  MutexLock lock(&step_mu_);
  for (ManagedGPU& managed : gpus_) managed.gpu->gpu_op_manager()->SetActive(false);
}

void GPUResourceState::OnFileEvent(const FileEvent& event) {
  if (event.kind == FileEvent::Kind::kDeleted) {
    LOG(WARNING, "GPU config '{}' was deleted; the last settings stay in force", config_file_);
    return;
  }
  std::vector<std::string> warnings;
  // An unreadable file (no regular file, too large) is rejected as a bad one.
  absl::StatusOr<GPUConfig> config =
      event.kind == FileEvent::Kind::kUnreadable
          ? absl::StatusOr<GPUConfig>(event.error)
          : ParseGPUConfig(event.content, config_file_, &warnings);
  for (const std::string& warning : warnings) LOG(WARNING, "{}", warning);
  MutexLock lock(&mu_);
  if (!config.ok()) {
    ++configs_rejected_;
    last_error_ = std::string(config.status().message());
    LOG(WARNING, "{}; the last good settings stay in force", config.status().message());
    changed_.SignalAll();
    return;
  }
  ++configs_applied_;
  // Fields the file leaves out keep their values.
  for (const auto& [key, bytes] : config->max_device_mem) config_.max_device_mem[key] = bytes;
  if (config->perf_control.has_value()) {
    if (*config->perf_control != perf_) {
      LOG(INFO, "GPU config '{}': perfControl {} -> {}", config_file_, perf_,
          *config->perf_control);
    }
    perf_ = *config->perf_control;
    config_.perf_control = perf_;
  }
  if (!config->max_device_mem.empty()) ++config_version_;
  changed_.SignalAll();
}

void GPUResourceState::AfterStep(absl::Duration step_duration) {
  absl::Duration sleep;
  bool suspend = false;
  {
    MutexLock step_lock(&step_mu_);
    GPUConfig config;
    bool new_limits = false;
    int perf = 100;
    {
      MutexLock lock(&mu_);
      if (config_version_ != version_applied_) {
        config = config_;
        version_applied_ = config_version_;
        new_limits = true;
      }
      perf = perf_;
    }
    if (new_limits) ApplyMemoryLimits(config);
    RetryShrinks();
    // The loop time of this step: from the end of the previous boundary
    // (after its sleep) to now, so time spent between Runs counts as well.
    const absl::Duration loop_time = last_step_end_ == absl::InfinitePast()
                                         ? step_duration
                                         : absl::Now() - last_step_end_;
    sleep = Pace(perf, std::max(loop_time, step_duration), &suspend);
  }
  // Waited without step_mu_, so the status stays readable meanwhile.
  absl::Duration slept;
  absl::Duration suspended_for;
  if (suspend) {
    const absl::Time start = absl::Now();
    Suspend();
    suspended_for = absl::Now() - start;
  } else {
    slept = IdleFor(sleep);
  }
  MutexLock step_lock(&step_mu_);
  slept_ = slept;
  suspended_for_ = suspended_for;
  last_step_end_ = absl::Now();
}

void GPUResourceState::ApplyMemoryLimits(const GPUConfig& config) {
  for (const auto& [key, bytes] : config.max_device_mem) {
    ManagedGPU* target = nullptr;
    for (ManagedGPU& managed : gpus_) {
      if (key == absl::StrCat("GPU:", managed.gpu->id()) ||
          key == absl::AsciiStrToLower(managed.gpu->pci_bus_id())) {
        target = &managed;
      }
    }
    if (target == nullptr) {
      LOG(WARNING, "GPU config '{}': gpuConfigInfo.\"{}\": no such GPU in this job; ignored",
          config_file_, key);
      continue;
    }
    if (target->requested_limit == bytes) continue;  // Reached, or being retried.
    target->requested_limit = bytes;
    target->shrink_pending = true;  // RetryShrinks applies it now.
  }
}

void GPUResourceState::RetryShrinks() {
  for (ManagedGPU& managed : gpus_) {
    if (!managed.shrink_pending) continue;
    const GPUUsageAdjustment::Result result =
        GPUUsageAdjustment::AdjustMemLimit(managed.gpu, managed.requested_limit);
    managed.limit_in_force = result.in_force;
    managed.shrink_pending = !result.reached;
    // Said once per request, then again only when the limit in force moves:
    // a job left above its target for many steps is not reported at each.
    const bool new_request = managed.reported_request != result.requested;
    if (!new_request && managed.reported_limit == result.in_force) continue;
    managed.reported_request = result.requested;
    managed.reported_limit = result.in_force;
    const std::string device = absl::StrCat("GPU:", managed.gpu->id());
    if (new_request && result.target < result.requested) {
      LOG(WARNING,
          "GPU config '{}': {}: maxDeviceMem {} is above the limit the session was created "
          "with; using {}",
          config_file_, device, result.requested, result.target);
    }
    if (result.reached) {
      LOG(INFO, "GPU config '{}': {}: memory limit in force {} bytes", config_file_, device,
          result.in_force);
    } else {
      LOG(WARNING,
          "GPU config '{}': {}: memory limit {} bytes not reached, {} bytes in force: live "
          "buffers hold the rest; retrying after each step",
          config_file_, device, result.target, result.in_force);
    }
  }
}

absl::Duration GPUResourceState::Pace(int perf_control, absl::Duration loop_time, bool* suspend) {
  if (perf_control != perf_applied_) {
    for (ManagedGPU& managed : gpus_) {
      // Suspension is a wait at the boundary, not pacing.
      managed.pacer.SetTarget(perf_control == 0 ? 100 : perf_control);
      const bool sms = policy_ == PacingPolicy::kSms;
      managed.gpu->gpu_op_manager()->SetActive(!sms && perf_control > 0 && perf_control < 100);
      if (sms) ApplySmShare(&managed, perf_control);
      managed.gpu->gpu_op_manager()->BeginStep(absl::ZeroDuration(), 0);
      managed.last_busy = managed.gpu->ComputeBusyTime();
    }
    perf_applied_ = perf_control;
    *suspend = perf_control == 0;
    return absl::ZeroDuration();  // The first paced step is measured from here.
  }
  if (perf_control >= 100 || perf_control == 0) return absl::ZeroDuration();

  absl::Duration sleep;
  for (ManagedGPU& managed : gpus_) {
    GpuOpManager* manager = managed.gpu->gpu_op_manager();
    const absl::Duration busy_now = managed.gpu->ComputeBusyTime();
    // Close the step's counters; the next budget is set below.
    const GpuOpManager::StepCounters counters = manager->BeginStep(absl::ZeroDuration(), 0);
    StepMeasurement m;
    m.wall = loop_time;
    m.gpu_busy = busy_now - managed.last_busy;
    m.slots = counters.slots;
    m.launches = counters.launches;
    managed.last_busy = busy_now;
    const PacingDecision decision = managed.pacer.OnStep(m, slept_);
    VLOG(2, "{}: step wall {} busy {} slots {} launches {}: sleep {}, next budget {}",
         managed.gpu->name(), absl::FormatDuration(m.wall), absl::FormatDuration(m.gpu_busy),
         absl::FormatDuration(m.slots), m.launches, absl::FormatDuration(decision.sleep_after_step),
         absl::FormatDuration(decision.next_step_budget));
    sleep = std::max(sleep, decision.sleep_after_step);
    manager->BeginStep(decision.next_step_budget, counters.launches);
  }
  return sleep;
}

void GPUResourceState::ApplySmShare(ManagedGPU* managed, int perf_control) {
  // Suspension is a wait at the boundary: the share stays as it was.
  if (perf_control == 0) return;
  if (absl::Status s = managed->gpu->SetSmFraction(perf_control / 100.0); !s.ok()) {
    LOG(WARNING, "GPU config '{}': perfControl {} not applied: {}", config_file_, perf_control,
        s);
    return;
  }
  LOG(INFO, "GPU config '{}': {}: {}% of the SMs", config_file_, managed->gpu->name(),
      perf_control);
}

absl::Duration GPUResourceState::IdleFor(absl::Duration d) {
  const absl::Time start = absl::Now();
  if (d <= absl::ZeroDuration()) return absl::ZeroDuration();
  const absl::Time deadline = start + d;
  const int perf_at_start = perf_control();
  MutexLock lock(&mu_);
  while (!stopping_ && perf_ == perf_at_start && absl::Now() < deadline) {
    changed_.WaitWithTimeout(&mu_, deadline - absl::Now());
  }
  return absl::Now() - start;
}

void GPUResourceState::Suspend() {
  MutexLock lock(&mu_);
  if (perf_ != 0 || stopping_) return;
  suspended_ = true;
  LOG(INFO, "GPU config '{}': perfControl 0, job suspended", config_file_);
  while (perf_ == 0 && !stopping_) changed_.Wait(&mu_);
  suspended_ = false;
  LOG(INFO, "GPU config '{}': perfControl {}, job resumed", config_file_, perf_);
}

int GPUResourceState::perf_control() const {
  MutexLock lock(&mu_);
  return perf_;
}

GPUResourceState::Status GPUResourceState::GetStatus() const {
  Status status;
  {
    MutexLock lock(&step_mu_);
    status.perf_control = perf_applied_;
    status.last_sleep = slept_;
    status.last_suspension = suspended_for_;
    for (const ManagedGPU& managed : gpus_) {
      DeviceStatus d;
      d.device = absl::StrCat("GPU:", managed.gpu->id());
      d.bus_id = managed.gpu->pci_bus_id();
      d.requested_limit = managed.requested_limit;
      d.limit_in_force = managed.limit_in_force;
      d.shrink_pending = managed.shrink_pending;
      d.achieved_share = managed.pacer.AchievedShare();
      status.devices.push_back(std::move(d));
    }
  }
  MutexLock lock(&mu_);
  status.suspended = suspended_;
  status.configs_applied = configs_applied_;
  status.configs_rejected = configs_rejected_;
  status.last_error = last_error_;
  return status;
}

bool GPUResourceState::WaitForConfigCount(int64_t count, absl::Duration timeout) const {
  const absl::Time deadline = absl::Now() + timeout;
  MutexLock lock(&mu_);
  while (configs_applied_ + configs_rejected_ < count) {
    if (absl::Now() >= deadline) return false;
    changed_.WaitWithTimeout(&mu_, deadline - absl::Now());
  }
  return true;
}

absl::Status GPUResourceManagement::RunAction(const SessionRunActionOptions& options) {
  if (options.session_options == nullptr || options.session_options->gpu_config_file.empty() ||
      options.states == nullptr) {
    return absl::OkStatus();
  }
  bool created = false;
  SessionActionState* state = options.states->GetOrCreate(kName, [&options, &created]() {
    created = true;
    const SessionOptions& session_options = *options.session_options;
    absl::StatusOr<PacingPolicy> policy = ParsePacingPolicy(session_options.pacing_policy);
    if (!policy.ok()) {
      LOG(WARNING, "{}; using precise pacing", policy.status());
      policy = PacingPolicy::kPrecise;
    }
    return std::make_unique<GPUResourceState>(session_options.gpu_config_file, *policy,
                                              options.device_mgr, FileListener::Global());
  });
  auto* resources = static_cast<GPUResourceState*>(state);
  struct stat file_stat;
  if (created && stat(options.session_options->gpu_config_file.c_str(), &file_stat) == 0) {
    // The listener delivers the file's current content right after it
    // starts watching: take it at this first boundary, not the next one.
    resources->WaitForConfigCount(1, absl::Seconds(1));
  }
  resources->AfterStep(absl::Microseconds(options.sess_duration_us));
  return absl::OkStatus();
}

GPUResourceState* GPUResourceManagement::StateOf(SessionActionStates* states) {
  return static_cast<GPUResourceState*>(states->GetOrCreate(kName, [] { return nullptr; }));
}

void GPUResourceManagement::FillSessionOptions(SessionOptions* options) const {
  if (options->gpu_config_file.empty()) options->gpu_config_file = GetEnvOr("GPU_CONFIG_FILE", "");
  if (options->pacing_policy.empty()) {
    options->pacing_policy = GetEnvOr("MINITF_PACING_POLICY", "precise");
  }
  if (!options->gpu_config_file.empty()) {
    // Limits change at run time: the pool grows on demand and what no
    // longer fits on the device goes to the host.
    options->config.gpu_options.allow_growth = true;
    options->config.gpu_options.vmem = true;
    // perfControl sets the share of an SM partition: the streams need one.
    if (options->pacing_policy == "sms" && options->config.gpu_options.sm_fraction == 0) {
      options->config.gpu_options.sm_fraction = 1;
    }
  }
}

REGISTER_SESSION_RUN_ACTION(SessionRunActionRegistry::POST_SESSION_RUN, 2, GPUResourceManagement);

}  // namespace minitf
