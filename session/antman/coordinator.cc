#include "session/antman/coordinator.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "platform/file.h"
#include "platform/status_macros.h"
#include "session/antman/gpu_config.h"

namespace minitf {
namespace {

using Json = nlohmann::json;

constexpr int64_t kMaxFileBytes = int64_t{1} << 20;
constexpr int64_t kMemoryQuantum = int64_t{64} << 20;
// Points older than this are dropped: far more than any window.
constexpr int64_t kHistoryUs = int64_t{300} * 1000000;

int64_t RoundUp(int64_t bytes, int64_t quantum) { return (bytes + quantum - 1) / quantum * quantum; }

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c == '\n' ? ' ' : c;
  }
  return quoted + "\"";
}

// Whether process `pid` is gone (a pid of 0: not known, never gone).
bool ProcessGone(int64_t pid) {
  if (pid <= 0) return false;
  return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// The figures of a status file the coordinator uses.
struct StatusFigures {
  int64_t time_us = 0;
  int64_t steps = 0;
  int64_t peak_bytes = 0;
};

absl::StatusOr<StatusFigures> ParseStatus(const std::string& content) {
  const Json j = Json::parse(content, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return absl::InvalidArgumentError("not a JSON object");
  StatusFigures f;
  for (const auto& [key, out] : {std::pair<const char*, int64_t*>{"timestampUs", &f.time_us},
                                 {"stepCount", &f.steps}}) {
    if (!j.contains(key) || !j.at(key).is_number_integer()) {
      return absl::InvalidArgumentError(absl::StrCat("no integer ", key));
    }
    *out = j.at(key).get<int64_t>();
  }
  if (j.contains("gpuUsageInfo") && j.at("gpuUsageInfo").is_object()) {
    for (const auto& [bus, gpu] : j.at("gpuUsageInfo").items()) {
      if (gpu.is_object() && gpu.contains("deviceMemUsedMax") &&
          gpu.at("deviceMemUsedMax").is_number_integer()) {
        f.peak_bytes = std::max(f.peak_bytes, gpu.at("deviceMemUsedMax").get<int64_t>());
      }
    }
  }
  return f;
}

// Why a file or directory of a job may not be trusted ("" when it may):
// not the owner's, or writable by users other than its owner and group.
// Absent is fine (not written yet); a link is left to the readers and the
// writer, which refuse it by name.
std::string Untrusted(const std::string& path, uid_t owner) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) return "";
  if (st.st_uid != owner) {
    return absl::StrCat("'", path, "' belongs to uid ", st.st_uid, ", its directory to uid ",
                        owner);
  }
  if ((st.st_mode & S_IWOTH) != 0) return absl::StrCat("'", path, "' is writable by every user");
  return "";
}

// Why the coordinator may not trust a job's files ("" when it may): a job
// directory that is no directory or that every user may write in; a file
// not its directory owner's, or writable by every user.
std::string WhyUntrusted(const JobFiles& files) {
  struct stat st;
  if (lstat(files.home.c_str(), &st) != 0) {
    return absl::StrCat("'", files.home, "': ", std::strerror(errno));
  }
  if (files.own_directory && !S_ISDIR(st.st_mode)) {
    return absl::StrCat("'", files.home, "' is ",
                        S_ISLNK(st.st_mode) ? "a symbolic link" : FileTypeName(st.st_mode),
                        ", not a directory");
  }
  if (files.own_directory && (st.st_mode & S_IWOTH) != 0) {
    return absl::StrCat("'", files.home, "' is writable by every user");
  }
  for (const std::string* path : {&files.registration, &files.config, &files.status}) {
    std::string why = Untrusted(*path, st.st_uid);
    if (!why.empty()) return why;
  }
  return "";
}

// The job an entry of the coordinator's directory registers, if any: the
// file <job>.job.json, or <job>/ holding job.json.
std::optional<std::pair<std::string, JobFiles>> RegisteredBy(const std::string& dir,
                                                             const std::string& entry) {
  const size_t suffix = std::strlen(kRegistrationSuffix);
  if (absl::EndsWith(entry, kRegistrationSuffix) && entry.size() > suffix) {
    const std::string job = entry.substr(0, entry.size() - suffix);
    return std::make_pair(job, SideBySideJobFiles(dir, job));
  }
  JobFiles files = OwnDirectoryJobFiles(dir, entry);
  struct stat st;
  if (lstat(files.registration.c_str(), &st) != 0) return std::nullopt;
  return std::make_pair(entry, std::move(files));
}

}  // namespace

JobFiles SideBySideJobFiles(const std::string& dir, const std::string& job) {
  const std::string base = absl::StrCat(dir, "/", job);
  return JobFiles{dir, base + kRegistrationSuffix, base + kConfigSuffix, base + kStatusSuffix,
                  /*own_directory=*/false};
}

JobFiles OwnDirectoryJobFiles(const std::string& dir, const std::string& job) {
  const std::string home = absl::StrCat(dir, "/", job);
  return JobFiles{home, absl::StrCat(home, "/", kRegistrationName),
                  absl::StrCat(home, "/", kConfigName), absl::StrCat(home, "/", kStatusName),
                  /*own_directory=*/true};
}

std::string RegistrationBeside(const std::string& config_file) {
  const std::filesystem::path path(config_file);
  const std::string file = path.filename().string();
  if (file == kConfigName) return (path.parent_path() / kRegistrationName).string();
  if (absl::EndsWith(file, kConfigSuffix) && file.size() > std::strlen(kConfigSuffix)) {
    return config_file.substr(0, config_file.size() - std::strlen(kConfigSuffix)) +
           kRegistrationSuffix;
  }
  return "";
}

std::string PidNamespace() {
  std::error_code error;
  const std::filesystem::path target = std::filesystem::read_symlink("/proc/self/ns/pid", error);
  return error ? "" : target.string();
}

std::string JobRegistrationJson(const std::string& name, const std::string& role,
                                absl::Time now) {
  const Json j = {{"name", name},
                  {"role", role},
                  {"pid", static_cast<int64_t>(getpid())},
                  {"pidNamespace", PidNamespace()},
                  {"heartbeatUs", absl::ToUnixMicros(now)}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

absl::Status WriteJobRegistration(const std::string& dir, const std::string& job,
                                  const std::string& role, absl::Time now) {
  return WriteFileAtomically(absl::StrCat(dir, "/", job, kRegistrationSuffix),
                             JobRegistrationJson(job, role, now));
}

std::string DecisionCsvHeader() { return "time_s,job,setting,old,new,reason\n"; }

std::string DecisionCsvRow(const Decision& d) {
  return absl::StrFormat("%.3f,%s,%s,%s,%s,%s\n", d.time_s, CsvField(d.job), d.setting,
                         CsvField(d.old_value), CsvField(d.new_value), CsvField(d.reason));
}

absl::Status CheckCoordinatorPolicy(const std::string& policy) {
  if (policy == "antman" || policy == "tgs") return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("coordinator policy wants antman or tgs, got '", policy, "'"));
}

Coordinator::Coordinator(CoordinatorOptions options)
    : options_([&options] {
        if (!options.clock) options.clock = [] { return absl::Now(); };
        return std::move(options);
      }()),
      start_(options_.clock()) {}

double Coordinator::Seconds(absl::Time t) const { return absl::ToDoubleSeconds(t - start_); }

double Coordinator::SoloRate(const std::string& job) const {
  auto it = jobs_.find(job);
  return it == jobs_.end() ? 0 : it->second.solo_rate;
}

void Coordinator::Decide(absl::Time now, const std::string& job, const std::string& setting,
                         std::string old_value, std::string new_value, std::string reason,
                         std::vector<Decision>* made) const {
  made->push_back({Seconds(now), job, setting, std::move(old_value), std::move(new_value),
                   std::move(reason)});
}

std::map<std::string, JobFiles> Coordinator::RegisteredJobs(absl::Time now,
                                                             std::vector<Decision>* made) {
  std::error_code error;
  std::map<std::string, JobFiles> jobs;
  std::set<std::string> twice;
  for (const auto& entry : std::filesystem::directory_iterator(options_.dir, error)) {
    std::optional<std::pair<std::string, JobFiles>> job =
        RegisteredBy(options_.dir, entry.path().filename().string());
    if (job.has_value() && !jobs.insert(*job).second) twice.insert(job->first);
  }
  for (auto it = untrusted_.begin(); it != untrusted_.end();) {
    it = jobs.count(it->first) != 0 ? std::next(it) : untrusted_.erase(it);
  }
  for (auto it = jobs.begin(); it != jobs.end();) {
    const std::string& name = it->first;
    const std::string why =
        twice.count(name) != 0
            ? absl::StrCat("registered twice, as ", name, kRegistrationSuffix, " and as ", name,
                           "/", kRegistrationName)
            : WhyUntrusted(it->second);
    if (why.empty()) {
      untrusted_.erase(name);
      ++it;
      continue;
    }
    if (untrusted_[name] != why) {
      untrusted_[name] = why;
      Decide(now, name, "ignored", "", "", why, made);
    }
    it = jobs.erase(it);
  }
  return jobs;
}

void Coordinator::ForgetLeftJobs(const std::map<std::string, JobFiles>& registered,
                                 absl::Time now, std::vector<Decision>* made) {
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (registered.count(it->first) == 0) {
      Decide(now, it->first, "left", it->second.role, "",
             untrusted_.count(it->first) != 0 ? "its files are no longer trusted"
                                              : "its registration was removed",
             made);
      it = jobs_.erase(it);
    } else {
      ++it;
    }
  }
}

bool Coordinator::ReadRegistration(const std::string& name, bool added, absl::Time now, Job& job,
                                   std::vector<Decision>* made) {
  absl::StatusOr<std::string> text = ReadRegularFile(job.files.registration, kMaxFileBytes,
                                                     "a job's registration", Links::kRefuse);
  const Json j = text.ok() ? Json::parse(*text, nullptr, false) : Json();
  if (j.is_object() && j.contains("heartbeatUs") && j.at("heartbeatUs").is_number_integer()) {
    job.heartbeat_us = std::max(job.heartbeat_us, j.at("heartbeatUs").get<int64_t>());
  }
  if (!added) return true;
  const bool valid = j.is_object() && j.contains("role") && j.at("role").is_string() &&
                     (j.at("role") == "guarantee" || j.at("role") == "opportunistic");
  if (!valid) {
    // Perhaps half-written: read again next round.
    Decide(now, name, "ignored", "", "",
           absl::StrCat(std::filesystem::path(job.files.registration).filename().string(), ": ",
                        text.ok() ? "no \"role\" of guarantee or opportunistic"
                                  : std::string(text.status().message())),
           made);
    return false;
  }
  job.role = j.at("role").get<std::string>();
  const bool same_namespace = j.contains("pidNamespace") && j.at("pidNamespace").is_string() &&
                              j.at("pidNamespace") == PidNamespace() && !PidNamespace().empty();
  if (same_namespace && j.contains("pid") && j.at("pid").is_number_integer()) {
    job.pid = j.at("pid");
  }
  job.status_changed = now;
  ReadStartingConfig(job);
  Decide(now, name, "found", "", job.role,
         absl::StrCat("pid ", job.pid,
                      job.configured ? absl::StrCat(", perfControl ", job.perf_control) : "",
                      job.files.own_directory ? absl::StrCat(", files in ", job.files.home, "/")
                                              : ""),
         made);
  return true;
}

void Coordinator::ReadStartingConfig(Job& job) {
  // A config already there (a coordinator before this one, the job's own
  // start) is the starting point.
  absl::StatusOr<std::string> config_text =
      ReadRegularFile(job.files.config, kMaxFileBytes, "a GPU config", Links::kRefuse);
  if (config_text.ok()) {
    absl::StatusOr<GPUConfig> config = ParseGPUConfig(*config_text, job.files.config);
    if (config.ok()) {
      job.configured = true;
      job.perf_control = config->perf_control.value_or(100);
      for (const auto& [device, bytes] : config->max_device_mem) {
        job.max_device_mem = std::max(job.max_device_mem, bytes);
      }
    }
  }
  if (job.role == "opportunistic" && job.configured) {
    opportunistic_perf_ = std::min(opportunistic_perf_, std::max(job.perf_control, 1));
  }
}

void Coordinator::ReadStatus(const std::string& name, absl::Time now, Job& job,
                             std::vector<Decision>* made) {
  absl::StatusOr<std::string> status_text =
      ReadRegularFile(job.files.status, kMaxFileBytes, "a GPU status", Links::kRefuse);
  if (!status_text.ok()) return;
  absl::StatusOr<StatusFigures> status = ParseStatus(*status_text);
  if (!status.ok()) {
    const std::string why = std::string(status.status().message());
    if (why != job.bad_status) {
      Decide(now, name, "ignored", "", "",
             absl::StrCat(std::filesystem::path(job.files.status).filename().string(), ": ", why),
             made);
      job.bad_status = why;
    }
    return;
  }
  if (status->time_us <= job.status_time_us) return;
  job.bad_status.clear();
  job.status_time_us = status->time_us;
  job.status_changed = now;
  job.peak_bytes = status->peak_bytes;
  job.points.push_back({status->time_us, status->steps});
  while (job.points.size() > 2 && job.points.front().time_us < status->time_us - kHistoryUs) {
    job.points.pop_front();
  }
  if (job.lost) {
    job.lost = false;
    Decide(now, name, "found", "lost", job.role, "its status is written again", made);
  }
}

void Coordinator::CheckAlive(const std::string& name, absl::Time now, Job& job,
                             std::vector<Decision>* made) {
  // A paced job steps slowly and a suspended one not at all: its status
  // may rest for as long as its share says.
  const double status_allowed_s =
      options_.stale_s * 100.0 / std::max(job.configured ? job.perf_control : 100, 1);
  const double heartbeat_age_s =
      static_cast<double>(absl::ToUnixMicros(now) - job.heartbeat_us) / 1e6;
  if (ProcessGone(job.pid)) {
    job.lost = true;
    Decide(now, name, "lost", job.role, "", absl::StrCat("process ", job.pid, " is gone"), made);
  } else if (job.heartbeat_us > 0 && heartbeat_age_s > options_.stale_s) {
    job.lost = true;
    Decide(now, name, "lost", job.role, "",
           absl::StrFormat("its heartbeat stopped %.1f s ago", heartbeat_age_s), made);
  } else if (job.status_time_us > 0 && !(job.configured && job.perf_control == 0) &&
             now - job.status_changed > absl::Seconds(status_allowed_s)) {
    job.lost = true;
    Decide(now, name, "lost", job.role, "",
           absl::StrFormat("its status has not changed for %.1f s (at perfControl %d)",
                           absl::ToDoubleSeconds(now - job.status_changed),
                           job.configured ? job.perf_control : 100),
           made);
  }
}

void Coordinator::Read(std::vector<Decision>* made) {
  const absl::Time now = options_.clock();
  const std::map<std::string, JobFiles> registered = RegisteredJobs(now, made);
  ForgetLeftJobs(registered, now, made);
  for (const auto& [name, files] : registered) {
    auto [it, added] = jobs_.try_emplace(name);
    it->second.files = files;
    if (!ReadRegistration(name, added, now, it->second, made)) {
      jobs_.erase(it);
      continue;
    }
    ReadStatus(name, now, it->second, made);
    if (!it->second.lost) CheckAlive(name, now, it->second, made);
  }
}

double Coordinator::Rate(const Job& job, absl::Time since) const {
  const int64_t since_us = absl::ToUnixMicros(since);
  const Point* first = nullptr;
  for (const Point& p : job.points) {
    if (p.time_us >= since_us) {
      first = &p;
      break;
    }
  }
  if (first == nullptr || job.points.empty()) return -1;
  const Point& last = job.points.back();
  const double span_s = static_cast<double>(last.time_us - first->time_us) / 1e6;
  // Less than half the window seen: not yet a rate.
  if (span_s < options_.window_s / 2) return -1;
  return static_cast<double>(last.steps - first->steps) / span_s;
}

std::map<std::string, int64_t> Coordinator::MemoryPlan() const {
  const int64_t capacity = options_.gpu_memory_bytes;
  const int64_t floor = options_.memory_floor_bytes;
  std::map<std::string, int64_t> reserve;
  int64_t reserved = 0;
  int opportunistic = 0;
  for (const auto& [name, job] : jobs_) {
    if (job.lost) continue;
    if (job.role == "opportunistic") {
      ++opportunistic;
      continue;
    }
    int64_t r = job.peak_bytes > 0
                    ? RoundUp(static_cast<int64_t>(static_cast<double>(job.peak_bytes) *
                                                   (1 + options_.memory_margin)),
                              kMemoryQuantum)
                    : job.max_device_mem;
    r = std::clamp<int64_t>(r, floor, capacity);
    reserve[name] = r;
    reserved += r;
  }
  std::map<std::string, int64_t> plan;
  for (const auto& [name, job] : jobs_) {
    if (job.lost) continue;
    if (job.role == "guarantee") {
      // Room to grow: all but the other guarantee jobs' and the
      // opportunistic jobs' floors.
      const int64_t others = reserved - reserve[name] + floor * opportunistic;
      plan[name] = std::max(reserve[name], capacity - others);
    } else {
      plan[name] = std::max(floor, (capacity - reserved) / std::max(opportunistic, 1));
    }
  }
  return plan;
}

std::optional<int> Coordinator::ComputePlan(absl::Time now, std::string* reason) {
  NamedJobs guarantee;
  bool any_opportunistic = false;
  for (auto& [name, job] : jobs_) {
    if (job.lost) continue;
    if (job.role == "guarantee") guarantee.emplace_back(name, &job);
    if (job.role == "opportunistic") any_opportunistic = true;
  }
  if (!any_opportunistic) return std::nullopt;
  if (guarantee.empty()) {
    calibrate_end_.reset();
    *reason = "no guarantee job to protect";
    opportunistic_perf_ = 100;
    return 100;
  }
  if (calibrate_end_.has_value()) return EndCalibration(now, guarantee, reason);
  bool needs_solo = now - calibrated_at_ >= absl::Seconds(options_.recalibrate_s);
  for (auto& [name, job] : guarantee) {
    if (job->solo_rate <= 0) needs_solo = true;
    // A guarantee job not stepping yet cannot be measured: wait for it.
    if (job->points.empty()) return std::nullopt;
  }
  if (needs_solo) {
    // Suspended for calibrate_s to settle, then a window measured alone.
    calibrate_end_ = now + absl::Seconds(options_.calibrate_s) + absl::Seconds(options_.window_s);
    *reason = absl::StrFormat("calibrating: the opportunistic jobs wait %.1f s",
                              options_.calibrate_s + options_.window_s);
    return 0;
  }
  if (!Settled(now)) return std::nullopt;
  return Steer(now, guarantee, reason);
}

std::optional<int> Coordinator::EndCalibration(absl::Time now, const NamedJobs& guarantee,
                                               std::string* reason) {
  if (now < *calibrate_end_) return 0;
  const absl::Duration window = absl::Seconds(options_.window_s);
  // The last window was the guarantee jobs alone. One that has not stepped
  // enough in it to measure (a long first step) gets more.
  bool measured = true;
  for (auto& [name, job] : guarantee) measured = measured && Rate(*job, now - window) > 0;
  if (!measured && calibration_extensions_ < 3) {
    ++calibration_extensions_;
    calibrate_end_ = now + window;
    return 0;
  }
  calibration_extensions_ = 0;
  std::string figures;
  for (auto& [name, job] : guarantee) {
    const double rate = Rate(*job, now - window);
    if (rate > 0) job->solo_rate = rate;
    absl::StrAppend(&figures, figures.empty() ? "" : "; ", name,
                    rate > 0 ? absl::StrFormat(" alone at %.2f steps/s", rate)
                             : std::string(" not measured (too few steps)"));
  }
  calibrate_end_.reset();
  calibrated_at_ = now;
  Changed(now);
  *reason = absl::StrCat("calibrated: ", figures, "; resumed");
  return opportunistic_perf_;
}

std::optional<int> Coordinator::Steer(absl::Time now, const NamedJobs& guarantee,
                                      std::string* reason) {
  const absl::Duration window = absl::Seconds(options_.window_s);
  double worst = 2;
  std::string worst_figures;
  for (auto& [name, job] : guarantee) {
    const double rate = Rate(*job, now - window);
    if (rate < 0) return std::nullopt;
    const double ratio = rate / job->solo_rate;
    if (ratio < worst) {
      worst = ratio;
      worst_figures = absl::StrFormat("guarantee '%s' at %.3f of solo (%.2f of %.2f steps/s)",
                                      name, ratio, rate, job->solo_rate);
    }
  }
  const int before = opportunistic_perf_;
  int after = before;
  if (options_.policy == "tgs") {
    after = worst < options_.target
                ? std::max(1, before / 2)
                : std::min(100, std::max(before + 1, static_cast<int>(std::lround(before * 1.5))));
  } else {
    after = worst < options_.target ? std::max(1, before - 10) : std::min(100, before + 10);
  }
  if (after == before) return std::nullopt;
  opportunistic_perf_ = after;
  Changed(now);
  *reason = absl::StrCat(worst_figures, worst < options_.target ? ", below " : ", at or above ",
                         options_.target);
  return after;
}

void Coordinator::Changed(absl::Time now) {
  changed_at_ = now;
  effective_at_.reset();
  steps_at_change_.clear();
  for (const auto& [name, job] : jobs_) {
    if (job.role == "opportunistic" && !job.lost && !job.points.empty()) {
      steps_at_change_[name] = job.points.back().steps;
    }
  }
}

bool Coordinator::Settled(absl::Time now) {
  const absl::Duration window = absl::Seconds(options_.window_s);
  if (now - changed_at_ >= absl::Seconds(options_.max_settle_s)) return true;
  if (!effective_at_.has_value()) {
    for (const auto& [name, steps] : steps_at_change_) {
      auto it = jobs_.find(name);
      if (it == jobs_.end() || it->second.lost) continue;
      if (it->second.points.empty() || it->second.points.back().steps <= steps) return false;
    }
    effective_at_ = now;
  }
  return now >= std::max(*effective_at_, changed_at_) + window;
}

absl::Status Coordinator::Write(const std::string& name, Job& job, int64_t max_device_mem,
                                int perf_control, const std::string& reason,
                                std::vector<Decision>* made) {
  // Memory moves by less than 2 % are noise in the peak, not worth a write.
  if (job.configured && job.max_device_mem > 0 &&
      std::abs(static_cast<double>(max_device_mem - job.max_device_mem)) <
          0.02 * static_cast<double>(job.max_device_mem)) {
    max_device_mem = job.max_device_mem;
  }
  if (job.configured && max_device_mem == job.max_device_mem && perf_control == job.perf_control) {
    return absl::OkStatus();
  }
  GPUConfig config;
  config.perf_control = perf_control;
  config.max_device_mem["GPU:0"] = max_device_mem;
  MINITF_RETURN_IF_ERROR(WriteFileAtomically(job.files.config, GPUConfigToJson(config)));
  const double now_s = Seconds(options_.clock());
  if (!job.configured || max_device_mem != job.max_device_mem) {
    made->push_back({now_s, name, "maxDeviceMem",
                     job.configured ? absl::StrCat(job.max_device_mem) : "",
                     absl::StrCat(max_device_mem),
                     absl::StrFormat("%s; peak %d bytes, GPU %d bytes", job.role, job.peak_bytes,
                                     options_.gpu_memory_bytes)});
  }
  if (!job.configured || perf_control != job.perf_control) {
    made->push_back({now_s, name, "perfControl",
                     job.configured ? absl::StrCat(job.perf_control) : "",
                     absl::StrCat(perf_control), reason});
  }
  // A new share is a new chance to step: a resumed job's wait while it was
  // suspended does not count against it.
  if (perf_control != job.perf_control) job.status_changed = options_.clock();
  job.configured = true;
  job.max_device_mem = max_device_mem;
  job.perf_control = perf_control;
  return absl::OkStatus();
}

absl::Status Coordinator::WriteOrIgnore(const std::string& name, Job& job,
                                        int64_t max_device_mem, int perf_control,
                                        const std::string& reason, absl::Time now,
                                        std::vector<Decision>* made) {
  const absl::Status written = Write(name, job, max_device_mem, perf_control, reason, made);
  if (absl::IsPermissionDenied(written) || absl::IsInvalidArgument(written)) {
    // Its config path is a link or no regular file (planted by a tenant):
    // nothing is written through it; the other jobs go on. Said once.
    const std::string why_not = std::string(written.message());
    if (why_not != job.bad_config) {
      made->push_back({Seconds(now), name, "ignored", "", "", why_not});
      job.bad_config = why_not;
    }
    return absl::OkStatus();
  }
  MINITF_RETURN_IF_ERROR(written);
  job.bad_config.clear();
  return absl::OkStatus();
}

absl::Status Coordinator::ApplyCustomPolicy(absl::Time now, std::vector<Decision>* made) {
  std::vector<CoordinatedJob> live;
  for (const auto& [name, job] : jobs_) {
    if (job.lost) continue;
    live.push_back({name, job.role, job.points.empty() ? 0 : job.points.back().steps,
                    Rate(job, now - absl::Seconds(options_.window_s)), job.peak_bytes,
                    job.max_device_mem, job.perf_control});
  }
  MINITF_ASSIGN_OR_RETURN(const auto configs, options_.custom_policy(Seconds(now), live));
  for (const auto& [name, config] : configs) {
    auto it = jobs_.find(name);
    if (it == jobs_.end() || it->second.lost) {
      return absl::InvalidArgumentError(
          absl::StrCat("the coordinator's policy configured '", name, "', which is no live job"));
    }
    if (config.max_device_mem <= 0 || config.perf_control < 0 || config.perf_control > 100) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the coordinator's policy gave job '", name, "' maxDeviceMem ", config.max_device_mem,
          " and perfControl ", config.perf_control,
          " (wanted: more than 0 bytes, perfControl 0 to 100)"));
    }
    MINITF_RETURN_IF_ERROR(WriteOrIgnore(name, it->second, config.max_device_mem,
                                         config.perf_control, "the caller's policy", now, made));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Decision>> Coordinator::Tick() {
  std::vector<Decision> made;
  Read(&made);
  const absl::Time now = options_.clock();
  if (options_.custom_policy) {
    MINITF_RETURN_IF_ERROR(ApplyCustomPolicy(now, &made));
    return made;
  }
  std::string reason;
  const std::optional<int> planned = ComputePlan(now, &reason);
  const std::map<std::string, int64_t> memory = MemoryPlan();
  for (auto& [name, job] : jobs_) {
    if (job.lost) continue;
    int perf = 100;
    std::string why = "guarantee jobs run unrestricted";
    if (job.role == "opportunistic") {
      // A job that joined since the plan last changed takes the current one.
      perf = planned.value_or(calibrate_end_.has_value() ? 0 : opportunistic_perf_);
      why = planned.has_value() ? reason : "the opportunistic jobs' share";
    }
    MINITF_RETURN_IF_ERROR(WriteOrIgnore(name, job, memory.at(name), perf, why, now, &made));
  }
  return made;
}

}  // namespace minitf
