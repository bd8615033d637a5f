#include "session/antman/gpu_statistics.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "platform/env.h"
#include "platform/logging.h"
#include "session/antman/gpu_resource_management.h"
#include "session/session_options.h"

namespace minitf {

GPUStatisticsState::GPUStatisticsState(GPUStatsOptions options, const DeviceMgr* device_mgr)
    : file_(std::move(options)) {
  MutexLock lock(&mu_);
  for (Device* device : device_mgr->ListDevices()) {
    auto* gpu = dynamic_cast<GPUDevice*>(device);
    if (gpu != nullptr) gpus_.push_back({gpu, gpu->ComputeBusyTime(), ""});
  }
  last_sample_ = absl::Now();
}

void GPUStatisticsState::AfterStep(int64_t graph_id, absl::Duration duration,
                                   const GPUResourceState* resources) {
  const int perf_control = resources != nullptr ? resources->perf_control() : 100;
  std::vector<GPUMemorySample> samples;
  {
    MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    const absl::Duration wall = std::max(now - last_sample_, duration);
    last_sample_ = now;
    for (TrackedGPU& tracked : gpus_) {
      GPUAllocatorStack* stack = tracked.gpu->allocator_stack();
      BFCAllocator* device = stack->device_bfc();
      const AllocatorStats device_stats = device->GetStats().value_or(AllocatorStats());
      GPUMemorySample s;
      s.device = absl::StrCat("GPU:", tracked.gpu->id());
      s.bus_id = tracked.gpu->pci_bus_id();
      s.device_bytes_in_use = device_stats.bytes_in_use;
      s.device_peak_bytes = device_stats.peak_bytes_in_use;
      s.device_pool_bytes = device_stats.bytes_reserved;
      const BFCAllocator::PoolStats pool = device->GetPoolStats();
      s.device_live_region_bytes = static_cast<int64_t>(pool.live_region_bytes);
      s.device_limit_bytes = static_cast<int64_t>(pool.memory_limit);
      s.host_pool_bytes = stack->host_bfc()->GetStats().value_or(AllocatorStats()).bytes_reserved;
      if (VMemAllocator* vmem = stack->vmem(); vmem != nullptr) {
        const VMemStats host = vmem->GetVMemStats();
        s.host_bytes_in_use = host.host_bytes_in_use;
        s.host_peak_bytes = host.peak_host_bytes_in_use;
        if (host.last_reason != SwapReason::kNone) {
          tracked.swap_reason = SwapReasonName(host.last_reason);
        } else if (host.host_bytes_in_use == 0) {
          tracked.swap_reason.clear();
        }
        vmem->ClearStats();  // Also resets the device allocator's peak.
      } else {
        device->ClearStats();
      }
      s.swap_reason = tracked.swap_reason;
      const absl::Duration busy = tracked.gpu->ComputeBusyTime();
      s.gpu_share = wall > absl::ZeroDuration()
                        ? std::min(1.0, absl::FDivDuration(busy - tracked.last_busy, wall))
                        : 0;
      tracked.last_busy = busy;
      s.gpu_busy_us = absl::ToInt64Microseconds(busy);
      s.perf_control = perf_control;
      samples.push_back(std::move(s));
    }
    last_samples_ = samples;
  }
  absl::Status written = file_.RecordStep(graph_id, duration, samples);
  if (!written.ok()) LOG(WARNING, "GPU statistics not written: {}", written);
}

std::vector<GPUMemorySample> GPUStatisticsState::LastSamples() const {
  MutexLock lock(&mu_);
  return last_samples_;
}

absl::Status GPUStatistics::RunAction(const SessionRunActionOptions& options) {
  if (options.session_options == nullptr || options.session_options->gpu_status_file.empty() ||
      options.states == nullptr) {
    return absl::OkStatus();
  }
  SessionActionState* state = options.states->GetOrCreate(kName, [&options]() {
    GPUStatsOptions stats_options;
    stats_options.path = options.session_options->gpu_status_file;
    // Once a second at least, so a coordinator can follow the step rate.
    stats_options.refresh_interval = absl::Seconds(1);
    return std::make_unique<GPUStatisticsState>(std::move(stats_options), options.device_mgr);
  });
  static_cast<GPUStatisticsState*>(state)->AfterStep(
      options.graph_id, absl::Microseconds(options.sess_duration_us),
      GPUResourceManagement::StateOf(options.states));
  return absl::OkStatus();
}

GPUStatisticsState* GPUStatistics::StateOf(SessionActionStates* states) {
  return static_cast<GPUStatisticsState*>(states->GetOrCreate(kName, [] { return nullptr; }));
}

void GPUStatistics::FillSessionOptions(SessionOptions* options) const {
  if (options->gpu_status_file.empty()) options->gpu_status_file = GetEnvOr("GPU_STATUS_FILE", "");
}

REGISTER_SESSION_RUN_ACTION(SessionRunActionRegistry::POST_SESSION_RUN, 1, GPUStatistics);

}  // namespace minitf
