#include "bench/harness/scenario/scenario.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/harness/scenario/graph_job_spec.h"
#include "bench/harness/scenario/json_fields.h"
#include "nlohmann/json.hpp"
#include "platform/status_macros.h"
#include "runtime/gpu_pacing.h"
#include "stream/sim_gpu/sim_gpu_options.h"

namespace minitf::harness {
namespace {

using Json = nlohmann::json;

// The keys each object of a scenario may have, in the order the docs give.
constexpr absl::string_view kScenarioKeys[] = {"name", "device", "duration_s", "jobs",
                                                "timeline"};
constexpr absl::string_view kDeviceKeys[] = {"simgpu", "platform"};
constexpr absl::string_view kJobKeys[] = {
    "name",         "model",        "model_params", "graph",   "batch_size", "steps",
    "duration_s",   "role",         "memory_limit", "perf_control", "start_s", "pacing",
    "stream_priority", "input_ms"};
constexpr absl::string_view kActionKeys[] = {"at_s", "job", "maxDeviceMem", "perfControl"};

// Deeper than any scenario needs (it nests four levels); a limit keeps a
// file of brackets from costing a gigabyte of parse tree.
constexpr int kMaxJsonDepth = 32;
constexpr size_t kMaxNameBytes = 64;

const std::set<std::string>& KnownModels() {
  static const std::set<std::string> models = {"mlp", "cnn", "transformer", "graphdef"};
  return models;
}

bool IsSafeName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes || name[0] == '.' || name[0] == '-') {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

constexpr char kSafeNameRule[] =
    "must be 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-' (it names "
    "files), got ";

// A name of files (IsSafeName), when present or `required`.
absl::Status Name(const JsonFields& f, const std::string& field, std::string* out, bool required) {
  MINITF_RETURN_IF_ERROR(f.String(field, out, required));
  if (f.Has(field) && !IsSafeName(*out)) {
    return f.Error(field, absl::StrCat(kSafeNameRule, QuotedText(*out)));
  }
  return absl::OkStatus();
}

// A time in a scenario: min..kMaxScenarioSeconds.
absl::Status Seconds(const JsonFields& f, const std::string& field, double* out, double min) {
  return f.Seconds(field, out, min, kMaxScenarioSeconds);
}

absl::Status NotAnObject(const std::string& file, const std::string& path, const Json& v) {
  return absl::InvalidArgumentError(
      absl::StrCat("scenario '", file, "': ", path, " must be an object, got ", DescribeJson(v)));
}

// The path of `field` inside the object at `path` ("" for the file's top).
std::string Child(const std::string& path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}

absl::Status ParseJob(const Json& j, const std::string& file, const std::string& path,
                      JobSpec* job) {
  if (!j.is_object()) return NotAnObject(file, path, j);
  JsonFields f(j, file, path);
  MINITF_RETURN_IF_ERROR(f.CheckKeys(kJobKeys));
  MINITF_RETURN_IF_ERROR(Name(f, "name", &job->name, /*required=*/true));
  MINITF_RETURN_IF_ERROR(f.String("model", &job->model, /*required=*/true));
  if (!KnownModels().count(job->model)) {
    return f.Error("model", absl::StrCat("must be mlp, cnn, transformer or graphdef, got ",
                                         QuotedText(job->model)));
  }
  if (job->model == "graphdef") {
    if (!f.Has("graph")) return f.Error("graph", "is required for a graphdef job");
    if (f.Has("model_params")) {
      return f.Error("model_params", "is not for a graphdef job (its graph fixes its sizes)");
    }
    MINITF_RETURN_IF_ERROR(ParseGraphJob(j.at("graph"), file, Child(path, "graph"),
                                         std::filesystem::path(file).parent_path().string(),
                                         &job->graph));
    // Examples per step: the first feed's first dimension (a random feed's;
    // a file's is unknown until it is read), unless batch_size is given.
    if (!job->graph.feeds.empty()) {
      const std::vector<int64_t>& shape = job->graph.feeds.front().shape;
      if (!shape.empty() && shape[0] >= 1 && shape[0] <= (1 << 16)) {
        job->batch_size = static_cast<int>(shape[0]);
      }
    }
  } else if (f.Has("graph")) {
    return f.Error("graph", absl::StrCat("is for graphdef jobs, not ", job->model));
  }
  if (f.Has("model_params")) {
    const Json& params = j.at("model_params");
    if (!params.is_object()) {
      return f.Error("model_params", absl::StrCat("must be an object, got ", DescribeJson(params)));
    }
    JsonFields pf(params, file, Child(path, "model_params"));
    for (const auto& [key, value] : params.items()) {
      int64_t v = 0;
      MINITF_RETURN_IF_ERROR(pf.Integer(key, &v, 1, int64_t{1} << 20));
      job->model_params[key] = v;
    }
  }
  int64_t batch = job->batch_size;
  MINITF_RETURN_IF_ERROR(f.Integer("batch_size", &batch, 1, 1 << 16));
  job->batch_size = static_cast<int>(batch);
  MINITF_RETURN_IF_ERROR(f.Integer("steps", &job->steps, 0, int64_t{1} << 40));
  MINITF_RETURN_IF_ERROR(Seconds(f, "duration_s", &job->duration_s, 0));
  std::string role = "opportunistic";
  MINITF_RETURN_IF_ERROR(f.String("role", &role));
  if (role == "guarantee") {
    job->role = JobRole::kGuarantee;
  } else if (role == "opportunistic") {
    job->role = JobRole::kOpportunistic;
  } else {
    return f.Error("role", absl::StrCat("must be \"guarantee\" or \"opportunistic\", got ",
                                        QuotedText(role)));
  }
  MINITF_RETURN_IF_ERROR(f.Size("memory_limit", &job->memory_limit));
  int64_t perf = job->perf_control;
  MINITF_RETURN_IF_ERROR(f.Integer("perf_control", &perf, 0, 100));
  job->perf_control = static_cast<int>(perf);
  MINITF_RETURN_IF_ERROR(Seconds(f, "start_s", &job->start_s, 0));
  MINITF_RETURN_IF_ERROR(f.String("pacing", &job->pacing));
  if (!ParsePacingPolicy(job->pacing).ok()) {
    return f.Error("pacing", absl::StrCat("must be \"precise\", \"antman\" or \"sms\", got ",
                                          QuotedText(job->pacing)));
  }
  MINITF_RETURN_IF_ERROR(f.String("stream_priority", &job->stream_priority));
  if (f.Has("stream_priority") && !se::ParseStreamPriority(job->stream_priority).ok()) {
    return f.Error("stream_priority", absl::StrCat("must be \"high\", \"default\" or \"low\", got ",
                                                   QuotedText(job->stream_priority)));
  }
  MINITF_RETURN_IF_ERROR(f.Number("input_ms", &job->input_ms, 0, kMaxInputMs, "milliseconds"));
  return absl::OkStatus();
}

// `jobs`: each job's index in s.jobs by name.
absl::Status ParseAction(const Json& j, const std::string& file, const std::string& path,
                         const Scenario& s, const std::map<std::string, size_t>& jobs,
                         TimelineAction* action) {
  if (!j.is_object()) return NotAnObject(file, path, j);
  JsonFields f(j, file, path);
  MINITF_RETURN_IF_ERROR(f.CheckKeys(kActionKeys));
  if (!f.Has("at_s")) return f.Error("at_s", "is missing");
  MINITF_RETURN_IF_ERROR(Seconds(f, "at_s", &action->at_s, 0));
  if (action->at_s >= s.duration_s) {
    return f.Error("at_s", absl::StrCat(action->at_s,
                                        " is at or after the scenario's end (duration_s ",
                                        s.duration_s, "): the action would never happen"));
  }
  MINITF_RETURN_IF_ERROR(f.String("job", &action->job, /*required=*/true));
  if (!jobs.count(action->job)) {
    return f.Error("job", absl::StrCat("names no job of the scenario: ", QuotedText(action->job)));
  }
  if (f.Has("maxDeviceMem")) {
    int64_t bytes = 0;
    MINITF_RETURN_IF_ERROR(f.Size("maxDeviceMem", &bytes));
    action->max_device_mem = bytes;
  }
  if (f.Has("perfControl")) {
    int64_t perf = 0;
    MINITF_RETURN_IF_ERROR(f.Integer("perfControl", &perf, 0, 100));
    action->perf_control = static_cast<int>(perf);
  }
  if (!action->max_device_mem && !action->perf_control) {
    return f.Error("", "sets nothing: give maxDeviceMem and/or perfControl");
  }
  return absl::OkStatus();
}

// When `job` stops being part of the scenario, in seconds from its start.
double JobEnd(const Scenario& s, const JobSpec& job) {
  return job.duration_s > 0 ? std::min(s.duration_s, job.start_s + job.duration_s) : s.duration_s;
}

// Names distinct (even ignoring case: the names name files), every job
// starting before the end; a job cut by the end is a warning.
absl::Status CheckJobs(Scenario* s, const std::string& file) {
  const auto error = [&](size_t i, absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("scenario '", file, "': jobs[", i, "]", what));
  };
  if (s->jobs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("scenario '", file, "': jobs is empty"));
  }
  std::map<std::string, size_t> lower_names;  // to the first job of that name
  for (size_t i = 0; i < s->jobs.size(); ++i) {
    const JobSpec& job = s->jobs[i];
    const auto [it, inserted] = lower_names.emplace(absl::AsciiStrToLower(job.name), i);
    const JobSpec& first = s->jobs[it->second];
    if (!inserted && first.name == job.name) {
      return error(i, absl::StrCat(".name \"", job.name, "\" is given twice"));
    }
    if (!inserted) {
      return error(i, absl::StrCat(".name \"", job.name, "\" differs from jobs[", it->second,
                                   "].name \"", first.name,
                                   "\" only in case (they would name the same files on a "
                                   "case-insensitive file system)"));
    }
    if (job.start_s >= s->duration_s) {
      return error(i, absl::StrCat(".start_s ", job.start_s,
                                   " is at or after the scenario's end (duration_s ",
                                   s->duration_s, "): the job would never run"));
    }
    if (job.duration_s > 0 && job.start_s + job.duration_s > s->duration_s) {
      s->warnings.push_back(absl::StrCat(
          "scenario '", file, "': jobs[", i, "] (\"", job.name, "\") runs from ", job.start_s,
          " s for ", job.duration_s, " s, past the scenario's end at ", s->duration_s,
          " s: it is cut at ", s->duration_s, " s"));
    }
  }
  return absl::OkStatus();
}

std::string FileStem(absl::string_view file) {
  if (const size_t slash = file.rfind('/'); slash != absl::string_view::npos) {
    file.remove_prefix(slash + 1);
  }
  if (const size_t dot = file.rfind('.'); dot != absl::string_view::npos && dot > 0) {
    file.remove_suffix(file.size() - dot);
  }
  return std::string(file);
}

}  // namespace

se::StreamPriority JobStreamPriority(const JobSpec& job) {
  if (absl::StatusOr<se::StreamPriority> p = se::ParseStreamPriority(job.stream_priority); p.ok()) {
    return *p;
  }
  return job.role == JobRole::kGuarantee ? se::StreamPriority::kHighest
                                         : se::StreamPriority::kLowest;
}

const char* JobRoleName(JobRole role) {
  return role == JobRole::kGuarantee ? "guarantee" : "opportunistic";
}

absl::StatusOr<int64_t> ParseByteSize(absl::string_view text) {
  int64_t bytes = 0;
  if (!se::ParseByteSize(absl::StripAsciiWhitespace(text), &bytes)) {
    return absl::InvalidArgumentError(absl::StrCat("not a size: ", QuotedText(text)));
  }
  return bytes;
}

absl::StatusOr<double> ParseSeconds(absl::string_view flag, absl::string_view text) {
  double v = 0;
  if (!absl::SimpleAtod(text, &v)) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " wants a number of seconds, got '", text, "'"));
  }
  if (!std::isfinite(v)) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " wants a finite number of seconds, got '", text, "'"));
  }
  if (v < kMinDurationSeconds || v > kMaxScenarioSeconds) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " wants a number of seconds in ", NumberText(kMinDurationSeconds), "..",
        NumberText(kMaxScenarioSeconds), ", got '", text, "'"));
  }
  return v;
}

absl::StatusOr<Scenario> ParseScenarioJson(absl::string_view content,
                                           absl::string_view file_name) {
  const std::string file(file_name);
  MINITF_RETURN_IF_ERROR(CheckJsonText(content, file, kMaxJsonDepth));
  Json root = Json::parse(content.begin(), content.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat("scenario '", file, "': not valid JSON"));
  }
  if (!root.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("scenario '", file, "': must be a JSON object, got ", DescribeJson(root)));
  }
  Scenario s;
  JsonFields f(root, file, "");
  MINITF_RETURN_IF_ERROR(f.CheckKeys(kScenarioKeys));
  s.name = FileStem(file);
  MINITF_RETURN_IF_ERROR(Name(f, "name", &s.name, /*required=*/false));
  MINITF_RETURN_IF_ERROR(Seconds(f, "duration_s", &s.duration_s, kMinDurationSeconds));
  if (f.Has("device")) {
    const Json& device = root.at("device");
    if (!device.is_object()) return NotAnObject(file, "device", device);
    JsonFields df(device, file, "device");
    MINITF_RETURN_IF_ERROR(df.CheckKeys(kDeviceKeys));
    MINITF_RETURN_IF_ERROR(df.String("simgpu", &s.simgpu_options));
    MINITF_RETURN_IF_ERROR(df.String("platform", &s.platform));
    if (!s.platform.empty() && s.platform != "SimGPU" && s.platform != "CUDA") {
      return df.Error("platform",
                      absl::StrCat("must be \"SimGPU\" or \"CUDA\", got ", QuotedText(s.platform)));
    }
    absl::StatusOr<se::SimGPUOptions> options = se::ParseSimGPUOptions(s.simgpu_options);
    if (!options.ok()) {
      return df.Error("simgpu", PrintableText(options.status().message(), /*quoted=*/false, 200));
    }
  }
  if (!f.Has("jobs") || !root.at("jobs").is_array()) {
    return f.Error("jobs", "must be an array of jobs");
  }
  const Json& jobs = root.at("jobs");
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobSpec job;
    MINITF_RETURN_IF_ERROR(ParseJob(jobs[i], file, absl::StrCat("jobs[", i, "]"), &job));
    s.jobs.push_back(std::move(job));
  }
  MINITF_RETURN_IF_ERROR(CheckJobs(&s, file));
  if (f.Has("timeline")) {
    const Json& timeline = root.at("timeline");
    if (!timeline.is_array()) return f.Error("timeline", "must be an array of actions");
    std::map<std::string, size_t> job_index;
    for (size_t i = 0; i < s.jobs.size(); ++i) job_index[s.jobs[i].name] = i;
    for (size_t i = 0; i < timeline.size(); ++i) {
      TimelineAction action;
      MINITF_RETURN_IF_ERROR(ParseAction(timeline[i], file, absl::StrCat("timeline[", i, "]"), s,
                                         job_index, &action));
      const JobSpec& job = s.jobs[job_index.at(action.job)];
      if (action.at_s >= JobEnd(s, job)) {
        s.warnings.push_back(absl::StrCat("scenario '", file, "': timeline[", i, "] at ",
                                          action.at_s, " s acts on job \"", job.name,
                                          "\", which stops at ", JobEnd(s, job),
                                          " s: it has no effect"));
      }
      s.timeline.push_back(std::move(action));
    }
    std::stable_sort(s.timeline.begin(), s.timeline.end(),
                     [](const TimelineAction& a, const TimelineAction& b) {
                       return a.at_s < b.at_s;
                     });
  }
  return s;
}

absl::StatusOr<JobSpec> ParseJobJson(absl::string_view content, absl::string_view file_name) {
  const std::string file(file_name);
  MINITF_RETURN_IF_ERROR(CheckJsonText(content, file, kMaxJsonDepth));
  Json root = Json::parse(content.begin(), content.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat("job '", file, "': not valid JSON"));
  }
  if (!root.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("job '", file, "': must be a JSON object, got ", DescribeJson(root)));
  }
  JobSpec job;
  MINITF_RETURN_IF_ERROR(ParseJob(root, file, "", &job));
  return job;
}

absl::StatusOr<Scenario> ParseScenarioCsv(absl::string_view content,
                                          absl::string_view file_name) {
  const std::string file(file_name);
  Scenario s;
  s.name = FileStem(file);
  double last_submit = 0;
  int line_number = 0;
  bool header_seen = false;
  for (absl::string_view line : absl::StrSplit(content, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || absl::StartsWith(line, "#")) continue;
    std::vector<std::string> cells = absl::StrSplit(line, ',');
    for (std::string& c : cells) c = std::string(absl::StripAsciiWhitespace(c));
    const auto error = [&](absl::string_view what) {
      return absl::InvalidArgumentError(
          absl::StrCat("scenario '", file, "': line ", line_number, ": ", what));
    };
    if (!header_seen) {
      header_seen = true;
      if (cells != std::vector<std::string>{"submit_time", "model_name", "batch_size",
                                            "iterations", "gpu_requests", "priority"}) {
        return error(
            "the header must be submit_time,model_name,batch_size,iterations,gpu_requests,"
            "priority");
      }
      continue;
    }
    if (cells.size() != 6) return error(absl::StrCat("has ", cells.size(), " fields, not 6"));
    JobSpec job;
    job.name = absl::StrCat("job", s.jobs.size());
    double submit = 0;
    int64_t batch = 0, iterations = 0, gpus = 0, priority = 0;
    // The scenario lasts kCsvTailSeconds past the last submission, within
    // kMaxScenarioSeconds.
    constexpr double kMaxSubmit = kMaxScenarioSeconds - kCsvTailSeconds;
    if (!absl::SimpleAtod(cells[0], &submit) || !std::isfinite(submit) || submit < 0 ||
        submit > kMaxSubmit) {
      return error(absl::StrCat("submit_time must be a number of seconds in 0..",
                                static_cast<int64_t>(kMaxSubmit), ", got ", QuotedText(cells[0])));
    }
    job.model = absl::AsciiStrToLower(cells[1]);
    if (!KnownModels().count(job.model) || job.model == "graphdef") {
      return error(absl::StrCat("model_name must be mlp, cnn or transformer (a graphdef job "
                                "needs a JSON scenario), got ",
                                QuotedText(cells[1])));
    }
    if (!absl::SimpleAtoi(cells[2], &batch) || batch < 1 || batch > (1 << 16)) {
      return error(
          absl::StrCat("batch_size must be an integer in 1..65536, got ", QuotedText(cells[2])));
    }
    if (!absl::SimpleAtoi(cells[3], &iterations) || iterations < 1 ||
        iterations > (int64_t{1} << 40)) {
      return error(absl::StrCat("iterations must be an integer in 1..1099511627776, got ",
                                QuotedText(cells[3])));
    }
    if (!absl::SimpleAtoi(cells[4], &gpus) || gpus != 1) {
      return error(absl::StrCat("gpu_requests must be 1 (jobs share one GPU), got ",
                                QuotedText(cells[4])));
    }
    if (!absl::SimpleAtoi(cells[5], &priority) || priority < 0) {
      return error(absl::StrCat("priority must be an integer >= 0, got ", QuotedText(cells[5])));
    }
    job.start_s = submit;
    job.batch_size = static_cast<int>(batch);
    job.steps = iterations;
    job.role = priority == 0 ? JobRole::kGuarantee : JobRole::kOpportunistic;
    last_submit = std::max(last_submit, submit);
    s.jobs.push_back(std::move(job));
  }
  if (!header_seen) {
    return absl::InvalidArgumentError(absl::StrCat("scenario '", file, "': the file is empty"));
  }
  s.duration_s = last_submit + kCsvTailSeconds;
  MINITF_RETURN_IF_ERROR(CheckJobs(&s, file));
  return s;
}

absl::StatusOr<Scenario> LoadScenario(const std::string& path) {
  // Non-blocking: opening a FIFO for reading would otherwise wait for a
  // writer. The checks are on the descriptor opened, not on the name.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot read scenario '", path, "'"));
  }
  struct stat info;
  std::string content;
  absl::Status status;
  if (fstat(fd, &info) != 0) {
    status = absl::ErrnoToStatus(errno, absl::StrCat("cannot read scenario '", path, "'"));
  } else if (S_ISDIR(info.st_mode)) {
    status = absl::InvalidArgumentError(
        absl::StrCat("scenario '", path, "' is a directory, not a scenario file"));
  } else if (!S_ISREG(info.st_mode)) {
    status = absl::InvalidArgumentError(absl::StrCat(
        "scenario '", path, "' is not a regular file (a FIFO, socket or device cannot be read "
        "as a scenario)"));
  } else if (info.st_size > kMaxScenarioFileBytes) {
    status = absl::InvalidArgumentError(absl::StrCat("scenario '", path, "' is ", info.st_size,
                                                     " bytes; a scenario file is at most ",
                                                     kMaxScenarioFileBytes >> 20, " MiB"));
  } else {
    // The size may have changed since fstat: read at most one byte more
    // than the limit.
    char buffer[1 << 16];
    while (content.size() <= static_cast<size_t>(kMaxScenarioFileBytes)) {
      const ssize_t n = read(fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = absl::ErrnoToStatus(errno, absl::StrCat("cannot read scenario '", path, "'"));
        break;
      }
      if (n == 0) break;
      content.append(buffer, static_cast<size_t>(n));
    }
    if (status.ok() && content.size() > static_cast<size_t>(kMaxScenarioFileBytes)) {
      status = absl::InvalidArgumentError(absl::StrCat(
          "scenario '", path, "' is larger than ", kMaxScenarioFileBytes >> 20,
          " MiB; a scenario file is at most that"));
    }
  }
  close(fd);
  MINITF_RETURN_IF_ERROR(status);
  if (absl::EndsWith(path, ".csv")) return ParseScenarioCsv(content, path);
  if (absl::EndsWith(path, ".json")) return ParseScenarioJson(content, path);
  return absl::InvalidArgumentError(
      absl::StrCat("scenario '", path, "': the name must end in .json or .csv"));
}

}  // namespace minitf::harness
