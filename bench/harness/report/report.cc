#include "bench/harness/report/report.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "session/antman/coordinator.h"
#include "bench/harness/experiment/timeline.h"
#include "bench/harness/jobs/steps_csv.h"
#include "bench/harness/report/plots.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "platform/file.h"
#include "platform/status_macros.h"

namespace minitf::harness {
namespace {

// The files WriteReport writes besides summary.json and the steps files,
// and the trace the command line writes beside them (chrome_trace.h).
constexpr char kTable[] = "table.txt";
constexpr char kTimelineCsv[] = "device_timeline.csv";
constexpr char kThroughputCsv[] = "throughput.csv";
constexpr char kActionsCsv[] = "actions.csv";
constexpr char kCoordinatorCsv[] = "coordinator.csv";
constexpr char kTraceJson[] = "trace.json";

std::string FormatBytes(int64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string ActionLabel(const TimelineAction& a) {
  std::vector<std::string> parts;
  if (a.max_device_mem) parts.push_back(absl::StrCat("maxDeviceMem ", FormatBytes(*a.max_device_mem)));
  if (a.perf_control) parts.push_back(absl::StrCat("perfControl ", *a.perf_control));
  return absl::StrCat(a.job, " ", absl::StrJoin(parts, ", "));
}


}  // namespace

std::vector<JobSummary> Summaries(const ExperimentResult& result) {
  std::vector<JobSummary> out;
  for (const JobResult& job : result.jobs) {
    out.push_back(Summarize(job.spec, job.steps, job.solo_steps_per_s,
                            job.status.ok() ? "" : std::string(job.status.message())));
    out.back().solo_gpu_share = job.solo_gpu_share;
  }
  const double idle = GuaranteeSoloIdle(out);
  for (JobSummary& s : out) {
    if (s.role == "opportunistic" && idle > 0) s.harvest = s.gpu_share / idle;
  }
  return out;
}

std::vector<Phase> Phases(const ExperimentResult& result) {
  const double end = std::min(result.wall_s, result.scenario.duration_s);
  // Boundaries: the start, each distinct planned action time, the end.
  std::vector<std::pair<double, std::string>> starts = {{0, "start"}};
  for (const TimelineAction& a : result.scenario.timeline) {
    if (a.at_s >= end) continue;
    if (std::abs(a.at_s - starts.back().first) < 1e-9) {
      starts.back().second =
          starts.back().second == "start" ? ActionLabel(a)
                                          : absl::StrCat(starts.back().second, "; ", ActionLabel(a));
    } else {
      starts.push_back({a.at_s, ActionLabel(a)});
    }
  }
  std::vector<Phase> phases;
  for (size_t i = 0; i < starts.size(); ++i) {
    Phase p;
    p.from_s = starts[i].first;
    p.to_s = i + 1 < starts.size() ? starts[i + 1].first : end;
    p.label = starts[i].second;
    if (p.to_s <= p.from_s) continue;
    for (const JobResult& job : result.jobs) {
      const double rate = StepsPerSecondBetween(job.steps, p.from_s, p.to_s);
      p.steps_per_s.push_back(rate);
      p.vs_solo.push_back(job.solo_steps_per_s > 0 ? rate / job.solo_steps_per_s : 0);
    }
    phases.push_back(std::move(p));
  }
  return phases;
}

std::string FormatTable(const ExperimentResult& result) {
  std::string out;
  if (result.interrupted()) {
    out += fmt::format("interrupted by {} at {:.1f} s: the figures cover the time run\n\n",
                       result.interrupted_by, result.interrupted_at_s);
  }
  out += fmt::format(
      "{:<16} {:<13} {:>6} {:>8} {:>10} {:>8} {:>7} {:>6} {:>8} {:>7} {:>11} {:>10} {:>10}  "
      "{}\n",
      "job", "role", "steps", "steps/s", "examples/s", "solo/s", "vs solo", "GPU", "solo GPU",
      "harvest", "peak device", "peak host", "host steps", "failure");
  const std::vector<JobSummary> summaries = Summaries(result);
  const auto percent = [](double x, bool known) {
    return known ? fmt::format("{:.0f}%", 100 * x) : std::string("-");
  };
  for (const JobSummary& s : summaries) {
    out += fmt::format(
        "{:<16} {:<13} {:>6} {:>8.2f} {:>10.1f} {:>8} {:>7} {:>5.0f}% {:>8} {:>7} {:>11} {:>10} "
        "{:>10}  {}\n",
        s.name, s.role, s.steps, s.steps_per_s, s.examples_per_s,
        s.solo_steps_per_s > 0 ? fmt::format("{:.2f}", s.solo_steps_per_s) : "-",
        s.vs_solo > 0 ? fmt::format("{:.2f}", s.vs_solo) : "-", 100 * s.gpu_share,
        percent(s.solo_gpu_share, s.solo_steps_per_s > 0),
        percent(s.harvest, s.role == "opportunistic" && s.harvest > 0),
        FormatBytes(s.peak_device_bytes), FormatBytes(s.peak_host_bytes), s.host_fallback_steps,
        s.failure.empty() ? "-" : s.failure);
  }
  if (const double idle = GuaranteeSoloIdle(summaries); idle >= 0 && idle < 1) {
    out += fmt::format(
        "\nthe guarantee jobs alone leave {:.0f}% of the GPU's time idle: the most the "
        "opportunistic jobs can take without slowing them (harvest = their GPU share / that)\n",
        100 * idle);
  }
  const std::vector<Phase> phases = Phases(result);
  if (phases.size() > 1) {
    out += "\nsteps/s per phase (vs solo):\n";
    out += fmt::format("{:>13}  {:<42}", "from-to s", "phase begun by");
    for (const JobResult& job : result.jobs) out += fmt::format(" {:>16}", job.spec.name);
    out += "\n";
    for (const Phase& p : phases) {
      std::string label = p.label.size() > 42 ? p.label.substr(0, 39) + "..." : p.label;
      out += fmt::format("{:>13}  {:<42}", fmt::format("{:.1f}-{:.1f}", p.from_s, p.to_s), label);
      for (size_t j = 0; j < p.steps_per_s.size(); ++j) {
        const std::string cell =
            p.vs_solo[j] > 0 ? fmt::format("{:.2f} ({:.2f})", p.steps_per_s[j], p.vs_solo[j])
                             : fmt::format("{:.2f}", p.steps_per_s[j]);
        out += fmt::format(" {:>16}", cell);
      }
      out += "\n";
    }
  }
  return out;
}

std::vector<ThroughputBin> ThroughputBins(const ExperimentResult& result) {
  // About 60 bins of at least 1 s, all of one width, the last ending with
  // the run: a short bin at the end would turn one step into a spike.
  std::vector<ThroughputBin> bins;
  if (result.wall_s <= 0) return bins;
  const int count = std::max(1, static_cast<int>(std::min(60.0, result.wall_s)));
  const double width = result.wall_s / count;
  for (int i = 0; i < count; ++i) {
    ThroughputBin bin;
    bin.from_s = i * width;
    bin.to_s = i + 1 == count ? result.wall_s : (i + 1) * width;
    for (const JobResult& job : result.jobs) {
      bin.steps_per_s.push_back(StepsPerSecondBetween(job.steps, bin.from_s, bin.to_s));
    }
    bins.push_back(std::move(bin));
  }
  return bins;
}

namespace {

absl::Status WriteText(const std::string& path, const std::string& text) {
  return WriteFileAtomically(path, text);
}

// A scenario path or an error message can hold bytes that are not UTF-8:
// they become U+FFFD rather than cost the run its summary.
std::string JsonText(const nlohmann::json& j) {
  return j.dump(2, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

namespace {

std::string TimelineCsv(const ExperimentResult& result) {
  std::string csv = "time_s,utilisation";
  for (const JobResult& job : result.jobs) {
    const std::string& n = job.spec.name;
    csv += absl::StrCat(",", n, "_device_bytes,", n, "_pool_bytes,", n, "_host_bytes");
  }
  csv += "\n";
  for (const DeviceSample& s : result.timeline) {
    csv += fmt::format("{:.4f},{:.4f}", s.time_s, s.utilisation);
    for (const JobSample& j : s.jobs) {
      csv += fmt::format(",{},{},{}", j.device_bytes_in_use, j.device_pool_bytes,
                         j.host_bytes_in_use);
    }
    csv += "\n";
  }
  return csv;
}

std::string ThroughputCsv(const ExperimentResult& result) {
  std::string csv = "time_s";
  for (const JobResult& job : result.jobs) csv += absl::StrCat(",", job.spec.name);
  csv += "\n";
  for (const ThroughputBin& bin : ThroughputBins(result)) {
    csv += fmt::format("{:.3f}", (bin.from_s + bin.to_s) / 2);
    for (double rate : bin.steps_per_s) csv += fmt::format(",{:.4f}", rate);
    csv += "\n";
  }
  return csv;
}

std::string ActionsCsv(const ExperimentResult& result) {
  std::string csv = "time_s,job,maxDeviceMem,perfControl\n";
  for (const PerformedAction& p : result.actions) {
    csv += fmt::format("{:.4f},{},{},{}\n", p.time_s, p.action.job,
                       p.action.max_device_mem ? absl::StrCat(*p.action.max_device_mem) : "",
                       p.action.perf_control ? absl::StrCat(*p.action.perf_control) : "");
  }
  return csv;
}

// summary.json's "jobs": one object per job, in the scenario's order.
nlohmann::json JobsJson(const ExperimentResult& result, const std::vector<JobSummary>& summaries) {
  using nlohmann::json;
  json jobs = json::array();
  for (size_t i = 0; i < summaries.size(); ++i) {
    const JobSummary& s = summaries[i];
    const JobSpec& spec = result.jobs[i].spec;
    json job = {{"name", s.name},
                {"role", s.role},
                {"model", spec.model},
                {"batch_size", spec.batch_size},
                {"pacing", spec.pacing},
                {"stream_priority", se::StreamPriorityName(JobStreamPriority(spec))},
                {"input_ms", spec.input_ms},
                {"steps", s.steps},
                {"steps_per_s", s.steps_per_s},
                {"examples_per_s", s.examples_per_s},
                {"solo_steps_per_s", s.solo_steps_per_s},
                {"solo_gpu_share", s.solo_gpu_share},
                {"harvest", s.harvest},
                {"vs_solo", s.vs_solo},
                {"gpu_share", s.gpu_share},
                {"peak_device_bytes", s.peak_device_bytes},
                {"peak_host_bytes", s.peak_host_bytes},
                {"host_fallback_steps", s.host_fallback_steps},
                {"failure", s.failure},
                {"steps_file", absl::StrCat(s.name, ".steps.csv")}};
    if (spec.model == "graphdef") job["graph"] = spec.graph.file;
    const absl::Status& solo = result.jobs[i].solo_status;
    if (!solo.ok()) job["solo_failure"] = std::string(solo.message());
    if (result.jobs[i].trace_dropped_steps > 0) {
      job["trace_dropped_steps"] = result.jobs[i].trace_dropped_steps;
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

nlohmann::json SummaryJson(const ExperimentResult& result) {
  using nlohmann::json;
  const Scenario& sc = result.scenario;
  json j;
  // "complete", or "interrupted" (the figures cover the time run);
  // BeginReport's placeholder says "running".
  j["status"] = result.interrupted() ? "interrupted" : "complete";
  if (result.interrupted()) {
    j["interrupted_by"] = result.interrupted_by;
    j["interrupted_at_s"] = result.interrupted_at_s;
  }
  j["scenario"] = sc.name;
  j["simgpu"] = sc.simgpu_options;
  j["duration_s"] = sc.duration_s;
  j["wall_s"] = result.wall_s;
  j["capacity_bytes"] = result.capacity_bytes;
  const std::vector<JobSummary> summaries = Summaries(result);
  j["jobs"] = JobsJson(result, summaries);
  // -1: a guarantee job has no baseline.
  j["guarantee_solo_idle"] = GuaranteeSoloIdle(summaries);
  json phases = json::array();
  for (const Phase& p : Phases(result)) {
    phases.push_back({{"from_s", p.from_s},
                      {"to_s", p.to_s},
                      {"begun_by", p.label},
                      {"steps_per_s", p.steps_per_s},
                      {"vs_solo", p.vs_solo}});
  }
  j["phases"] = std::move(phases);
  json actions = json::array();
  for (const PerformedAction& p : result.actions) {
    json a = {{"time_s", p.time_s}, {"job", p.action.job}};
    if (p.action.max_device_mem) a["maxDeviceMem"] = *p.action.max_device_mem;
    if (p.action.perf_control) a["perfControl"] = *p.action.perf_control;
    actions.push_back(std::move(a));
  }
  j["actions"] = std::move(actions);
  if (!result.coordinator.empty()) {
    j["coordinator"] = {{"policy", result.coordinator},
                        {"decisions", result.decisions.size()},
                        {"log", kCoordinatorCsv}};
    if (!result.coordinator_ended.empty()) j["coordinator"]["ended"] = result.coordinator_ended;
  }
  j["processes"] = result.processes;
  j["defer_opportunistic"] = result.defer_opportunistic;
  j["below_normal_opportunistic"] = result.below_normal_opportunistic;
  if (result.device_bytes_after_jobs >= 0) {
    j["device_bytes_after_jobs"] = result.device_bytes_after_jobs;
  }
  return j;
}

}  // namespace

absl::Status BeginReport(const std::string& dir, const std::string& scenario_name) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot create output directory '", dir, "': ", error.message()));
  }
  // The per-job files an earlier run wrote are the ones its summary lists.
  std::vector<std::string> stale = PlotFiles();
  stale.insert(stale.end(),
               {kTable, kTimelineCsv, kThroughputCsv, kActionsCsv, kCoordinatorCsv, kTraceJson});
  std::ifstream previous(dir + "/summary.json");
  const nlohmann::json old = nlohmann::json::parse(previous, nullptr, /*allow_exceptions=*/false);
  if (old.is_object() && old.contains("jobs") && old["jobs"].is_array()) {
    for (const nlohmann::json& job : old["jobs"]) {
      if (!job.is_object() || !job.contains("steps_file") || !job["steps_file"].is_string()) {
        continue;
      }
      const std::string file = job["steps_file"].get<std::string>();
      if (absl::EndsWith(file, ".steps.csv") && file.find('/') == std::string::npos &&
          file[0] != '.') {
        stale.push_back(file);
      }
    }
  }
  for (const std::string& file : stale) {
    const std::string path = absl::StrCat(dir, "/", file);
    if (std::remove(path.c_str()) != 0 && errno != ENOENT) {
      return absl::UnavailableError(absl::StrCat("cannot remove the earlier run's '", path,
                                                 "': ", std::strerror(errno)));
    }
  }
  return WriteText(dir + "/summary.json",
                   JsonText({{"status", "running"}, {"scenario", scenario_name}}));
}

absl::Status AbandonReport(const std::string& dir, const std::string& scenario_name,
                           const absl::Status& error) {
  return WriteText(dir + "/summary.json",
                   JsonText({{"status", "failed"},
                             {"scenario", scenario_name},
                             {"error", error.ToString()}}));
}

absl::Status WriteReport(const ExperimentResult& result, const std::string& dir) {
  for (const JobResult& job : result.jobs) {
    MINITF_RETURN_IF_ERROR(WriteText(absl::StrCat(dir, "/", job.spec.name, ".steps.csv"),
                                     StepsCsv(job.steps)));
  }
  MINITF_RETURN_IF_ERROR(WriteText(absl::StrCat(dir, "/", kTimelineCsv), TimelineCsv(result)));
  MINITF_RETURN_IF_ERROR(WriteText(absl::StrCat(dir, "/", kThroughputCsv), ThroughputCsv(result)));
  MINITF_RETURN_IF_ERROR(WriteText(absl::StrCat(dir, "/", kActionsCsv), ActionsCsv(result)));
  if (!result.coordinator.empty()) {
    std::string csv = DecisionCsvHeader();
    for (const CoordinatorDecision& d : result.decisions) csv += d.row;
    MINITF_RETURN_IF_ERROR(WriteText(absl::StrCat(dir, "/", kCoordinatorCsv), csv));
  }
  MINITF_RETURN_IF_ERROR(WriteText(dir + "/summary.json", JsonText(SummaryJson(result))));
  return WriteText(absl::StrCat(dir, "/", kTable), FormatTable(result));
}

}  // namespace minitf::harness
