#include "session/antman/gpu_stats_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include <nlohmann/json.hpp>
#include "platform/file.h"
#include "platform/status_macros.h"

namespace minitf {
namespace {

// The key of a GPU's object under "gpuUsageInfo". AntMan took the bus id
// from TensorFlow's device description, lower-cased, and dropped the PCI
// domain ("0000:50:00.0" -> "50:00.0"); the same here. A GPU without a bus
// id is keyed by its device name.
std::string GPUUsageInfoKey(const GPUMemorySample& sample) {
  if (sample.bus_id.empty()) return sample.device;
  std::string key = absl::AsciiStrToLower(sample.bus_id);
  if (std::count(key.begin(), key.end(), ':') == 2) key.erase(0, key.find(':') + 1);
  return key;
}

}  // namespace

GPUStatsFile::GPUStatsFile(GPUStatsOptions options) : options_([&options] {
  if (!options.clock) options.clock = [] { return absl::Now(); };
  return std::move(options);
}()) {}

absl::Status GPUStatsFile::RecordStep(int64_t graph_id, absl::Duration duration,
                                      const std::vector<GPUMemorySample>& gpus) {
  std::vector<std::string> keys;
  keys.reserve(gpus.size());
  std::set<std::string> seen;
  for (const GPUMemorySample& sample : gpus) {
    keys.push_back(GPUUsageInfoKey(sample));
    if (!seen.insert(keys.back()).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GPU statistics for ", options_.path, ": two samples of one step name GPU '",
          keys.back(), "' (device ", sample.device, ", bus id '", sample.bus_id, "')"));
    }
  }
  const int64_t duration_us = absl::ToInt64Microseconds(duration);

  MutexLock lock(&mu_);
  const absl::Time now = options_.clock();
  durations_us_[graph_id] = duration_us;
  latest_duration_us_ = duration_us;
  ++steps_;

  for (size_t i = 0; i < gpus.size(); ++i) {
    const GPUMemorySample& sample = gpus[i];
    PeakRun& run = peak_runs_[keys[i]];
    if (run.steps > 0 && run.peak == sample.device_peak_bytes) {
      ++run.steps;
    } else {
      run.peak = sample.device_peak_bytes;
      run.steps = 1;
    }

    auto [it, first_in_window] = window_.try_emplace(keys[i]);
    GPUFigures& figures = it->second;
    if (first_in_window) {
      figures.device_used_max = sample.device_peak_bytes;
      figures.device_used_min = sample.device_bytes_in_use;
      figures.host_used_max = sample.host_peak_bytes;
      figures.host_used_min = sample.host_bytes_in_use;
    } else {
      figures.device_used_max = std::max(figures.device_used_max, sample.device_peak_bytes);
      figures.device_used_min = std::min(figures.device_used_min, sample.device_bytes_in_use);
      figures.host_used_max = std::max(figures.host_used_max, sample.host_peak_bytes);
      figures.host_used_min = std::min(figures.host_used_min, sample.host_bytes_in_use);
    }
    figures.device = sample.device;
    figures.bus_id = sample.bus_id;
    figures.device_pool_bytes = sample.device_pool_bytes;
    figures.device_live_region_bytes = sample.device_live_region_bytes;
    figures.device_limit_bytes = sample.device_limit_bytes;
    figures.device_peak_stable = run.steps >= options_.stable_steps;
    figures.host_pool_bytes = sample.host_pool_bytes;
    figures.swap_reason = sample.swap_reason;
    figures.gpu_share = sample.gpu_share;
    figures.gpu_busy_us = sample.gpu_busy_us;
    figures.perf_control = sample.perf_control;
  }

  bool duration_moved = true;
  if (auto written = written_durations_us_.find(graph_id);
      written != written_durations_us_.end()) {
    const double last = static_cast<double>(written->second);
    duration_moved = std::abs(static_cast<double>(duration_us) - last) >
                     options_.duration_change_threshold * last;
  }
  const bool stale = last_attempt_.has_value() && now - *last_attempt_ >= options_.refresh_interval;
  if (!written_ || duration_moved || stale || GPUFiguresChanged(window_, written_gpus_)) {
    pending_ = true;
  }
  if (!pending_) return absl::OkStatus();
  if (last_attempt_.has_value() && now - *last_attempt_ < options_.min_interval) {
    return absl::OkStatus();
  }
  return WriteLocked(now);
}

absl::Status GPUStatsFile::Flush() {
  MutexLock lock(&mu_);
  return WriteLocked(options_.clock());
}

int64_t GPUStatsFile::writes() const {
  MutexLock lock(&mu_);
  return writes_;
}

bool GPUStatsFile::GPUFiguresChanged(const std::map<std::string, GPUFigures>& window,
                                     const std::map<std::string, GPUFigures>& written) {
  if (window.size() != written.size()) return true;
  for (const auto& [key, now] : window) {
    auto it = written.find(key);
    if (it == written.end()) return true;
    // Every figure counts but the busy ones, which move at every step.
    GPUFigures now_at_written_share = now;
    now_at_written_share.gpu_share = it->second.gpu_share;
    now_at_written_share.gpu_busy_us = it->second.gpu_busy_us;
    if (now_at_written_share != it->second) return true;
  }
  return false;
}

std::string GPUStatsFile::Render(absl::Time now, int64_t steps, int64_t latest_duration_us,
                                 const std::map<int64_t, int64_t>& durations_us,
                                 const std::map<std::string, GPUFigures>& gpus) {
  // ordered_json keeps the keys in the documented order. The names, nesting
  // and types of AntMan's keys are fixed by AntMan's readers: see the header.
  nlohmann::ordered_json file;
  file["timestamp"] = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", now, absl::UTCTimeZone());
  file["timestampUs"] = absl::ToUnixMicros(now);
  file["stepCount"] = steps;
  file["miniBatchDuration"] = latest_duration_us;
  nlohmann::ordered_json durations = nlohmann::ordered_json::object();
  for (const auto& [graph_id, us] : durations_us) durations[absl::StrCat("graph_", graph_id)] = us;
  file["Durations"] = std::move(durations);
  nlohmann::ordered_json usage = nlohmann::ordered_json::object();
  for (const auto& [key, figures] : gpus) {
    nlohmann::ordered_json& gpu = usage[key];
    gpu["deviceMemUsedMax"] = figures.device_used_max;
    gpu["deviceMemUsedMin"] = figures.device_used_min;
    gpu["deviceMemPoolSize"] = figures.device_pool_bytes;
    gpu["deviceMemStable"] = figures.device_live_region_bytes;
    gpu["hostMemUsedMax"] = figures.host_used_max;
    gpu["hostMemUsedMin"] = figures.host_used_min;
    gpu["hostMemPoolSize"] = figures.host_pool_bytes;
    gpu["swapReason"] = figures.swap_reason;
    gpu["deviceMemUsedNvidia"] = figures.device_pool_bytes;
    // minitf's additions.
    gpu["device"] = figures.device;
    gpu["pciBusId"] = figures.bus_id;
    gpu["deviceMemLimit"] = figures.device_limit_bytes;
    gpu["deviceMemPeakStable"] = figures.device_peak_stable;
    gpu["gpuShare"] = figures.gpu_share;
    gpu["gpuBusyUs"] = figures.gpu_busy_us;
    gpu["perfControl"] = figures.perf_control;
  }
  file["gpuUsageInfo"] = std::move(usage);
  // `replace`: a device name that is not valid UTF-8 must not throw.
  return file.dump(/*indent=*/-1, /*indent_char=*/' ', /*ensure_ascii=*/false,
                   nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

absl::Status GPUStatsFile::WriteLocked(absl::Time now) {
  const std::map<std::string, GPUFigures>& gpus = window_.empty() ? written_gpus_ : window_;
  const std::string content = Render(now, steps_, latest_duration_us_, durations_us_, gpus);
  last_attempt_ = now;
  if (absl::Status written = WriteFileAtomically(options_.path, content); !written.ok()) {
    return absl::Status(written.code(),
                        absl::StrCat("writing GPU statistics file ", options_.path, ": ",
                                     written.message()));
  }
  if (!window_.empty()) {
    written_gpus_ = std::move(window_);
    window_.clear();
  }
  written_durations_us_ = durations_us_;
  written_ = true;
  pending_ = false;
  ++writes_;
  return absl::OkStatus();
}

}  // namespace minitf
