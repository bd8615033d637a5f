#include "bench/harness/experiment/timeline.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "platform/file.h"

namespace minitf::harness {

TimelineDriver::TimelineDriver(std::vector<TimelineAction> actions,
                               std::map<std::string, std::string> config_paths)
    : actions_(std::move(actions)), config_paths_(std::move(config_paths)) {
  for (const auto& [job, path] : config_paths_) configs_[job] = GPUConfig();
}

absl::Status TimelineDriver::Write(const std::string& job) {
  auto path = config_paths_.find(job);
  if (path == config_paths_.end()) {
    return absl::NotFoundError(absl::StrCat("the timeline names job '", job,
                                            "', which has no config file"));
  }
  return WriteFileAtomically(path->second, GPUConfigToJson(configs_[job]));
}

absl::Status TimelineDriver::WriteInitial(const std::string& job, const GPUConfig& config) {
  configs_[job] = config;
  return Write(job);
}

absl::Status TimelineDriver::Apply(const TimelineAction& action) {
  GPUConfig& config = configs_[action.job];
  if (action.max_device_mem) config.max_device_mem["GPU:0"] = *action.max_device_mem;
  if (action.perf_control) config.perf_control = *action.perf_control;
  return Write(action.job);
}

absl::StatusOr<std::vector<TimelineAction>> TimelineDriver::Advance(double elapsed_s) {
  std::vector<TimelineAction> performed;
  while (next_ < actions_.size() && actions_[next_].at_s <= elapsed_s) {
    absl::Status written = Apply(actions_[next_]);
    if (!written.ok()) return written;
    performed.push_back(actions_[next_]);
    ++next_;
  }
  return performed;
}

}  // namespace minitf::harness
