#include "bench/harness/timeline.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace minitf::harness {

absl::Status WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  // Whatever fails, the reason is the OS's and no partial "<path>.tmp" stays.
  const auto fail = [&tmp](absl::string_view what, int error) {
    remove(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("cannot ", what, " '", tmp, "': ",
                                               std::strerror(error)));
  };
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail("create", errno);
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      return fail("write", error);
    }
    written += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return fail("write", errno);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    remove(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("cannot rename '", tmp, "' over '", path,
                                               "': ", std::strerror(error)));
  }
  return absl::OkStatus();
}

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
