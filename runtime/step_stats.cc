#include "runtime/step_stats.h"

#include "absl/time/clock.h"

namespace minitf {

void StepStatsCollector::Save(const std::string& device, NodeExecStats stats) {
  MutexLock lock(&mu_);
  for (DeviceStepStats& d : dev_stats_) {
    if (d.device == device) {
      d.node_stats.push_back(std::move(stats));
      return;
    }
  }
  dev_stats_.push_back(DeviceStepStats{device, {std::move(stats)}});
}

void StepStatsCollector::Finalize(StepStats* out) {
  MutexLock lock(&mu_);
  for (DeviceStepStats& d : dev_stats_) out->dev_stats.push_back(std::move(d));
  dev_stats_.clear();
}

int64_t NowMicros() { return absl::GetCurrentTimeNanos() / 1000; }

}  // namespace minitf
