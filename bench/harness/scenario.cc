#include "bench/harness/scenario.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "platform/status_macros.h"
#include "stream/sim_gpu/sim_gpu_options.h"

namespace minitf::harness {
namespace {

using Json = nlohmann::json;

const std::set<std::string>& KnownModels() {
  static const std::set<std::string> models = {"mlp", "cnn", "transformer"};
  return models;
}

// Reads the fields of one JSON object, naming `path` in errors.
class Fields {
 public:
  Fields(const Json& object, std::string file, std::string path)
      : object_(object), file_(std::move(file)), path_(std::move(path)) {}

  absl::Status Error(absl::string_view field, absl::string_view what) const {
    const absl::string_view dot = path_.empty() || field.empty() ? "" : ".";
    return absl::InvalidArgumentError(
        absl::StrCat("scenario '", file_, "': ", path_, dot, field, " ", what));
  }

  bool Has(const char* field) const { return object_.contains(field); }

  absl::Status String(const char* field, std::string* out, bool required = false) const {
    if (!Has(field)) return required ? Error(field, "is missing") : absl::OkStatus();
    const Json& v = object_.at(field);
    if (!v.is_string()) return Error(field, "must be a string");
    *out = v.get<std::string>();
    return absl::OkStatus();
  }

  absl::Status Number(const char* field, double* out, double min) const {
    if (!Has(field)) return absl::OkStatus();
    const Json& v = object_.at(field);
    if (!v.is_number()) return Error(field, "must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < min) {
      return Error(field, absl::StrCat("must be a number >= ", min, ", got ", v.dump()));
    }
    *out = d;
    return absl::OkStatus();
  }

  absl::Status Integer(const char* field, int64_t* out, int64_t min, int64_t max) const {
    if (!Has(field)) return absl::OkStatus();
    const Json& v = object_.at(field);
    if (!v.is_number_integer() || v.get<int64_t>() < min || v.get<int64_t>() > max) {
      return Error(field, absl::StrCat("must be an integer in ", min, "..", max, ", got ",
                                       v.dump()));
    }
    *out = v.get<int64_t>();
    return absl::OkStatus();
  }

  // A size: an integer of bytes or a string such as "4GiB".
  absl::Status Size(const char* field, int64_t* out) const {
    if (!Has(field)) return absl::OkStatus();
    const Json& v = object_.at(field);
    if (v.is_number_integer() && v.get<int64_t>() > 0) {
      *out = v.get<int64_t>();
      return absl::OkStatus();
    }
    if (v.is_string()) {
      absl::StatusOr<int64_t> bytes = ParseByteSize(v.get<std::string>());
      if (bytes.ok() && *bytes > 0) {
        *out = *bytes;
        return absl::OkStatus();
      }
    }
    return Error(field, absl::StrCat("must be a positive size (bytes, or e.g. \"4GiB\"), got ",
                                     v.dump()));
  }

 private:
  const Json& object_;
  const std::string file_;
  const std::string path_;
};

absl::Status ParseJob(const Json& j, const std::string& file, const std::string& path,
                      JobSpec* job) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("scenario '", file, "': ", path, " must be an object"));
  }
  Fields f(j, file, path);
  MINITF_RETURN_IF_ERROR(f.String("name", &job->name, /*required=*/true));
  if (job->name.empty() || job->name.find_first_of("/ \t\n") != std::string::npos) {
    return f.Error("name", "must be non-empty, without spaces or '/' (it names files)");
  }
  MINITF_RETURN_IF_ERROR(f.String("model", &job->model, /*required=*/true));
  if (!KnownModels().count(job->model)) {
    return f.Error("model", absl::StrCat("must be mlp, cnn or transformer, got \"", job->model,
                                         "\""));
  }
  if (f.Has("model_params")) {
    const Json& params = j.at("model_params");
    if (!params.is_object()) return f.Error("model_params", "must be an object");
    Fields pf(params, file, absl::StrCat(path, ".model_params"));
    for (const auto& [key, value] : params.items()) {
      int64_t v = 0;
      MINITF_RETURN_IF_ERROR(pf.Integer(key.c_str(), &v, 1, int64_t{1} << 20));
      job->model_params[key] = v;
    }
  }
  int64_t batch = job->batch_size;
  MINITF_RETURN_IF_ERROR(f.Integer("batch_size", &batch, 1, 1 << 16));
  job->batch_size = static_cast<int>(batch);
  MINITF_RETURN_IF_ERROR(f.Integer("steps", &job->steps, 0, int64_t{1} << 40));
  MINITF_RETURN_IF_ERROR(f.Number("duration_s", &job->duration_s, 0));
  std::string role = "opportunistic";
  MINITF_RETURN_IF_ERROR(f.String("role", &role));
  if (role == "guarantee") {
    job->role = JobRole::kGuarantee;
  } else if (role == "opportunistic") {
    job->role = JobRole::kOpportunistic;
  } else {
    return f.Error("role", absl::StrCat("must be \"guarantee\" or \"opportunistic\", got \"",
                                        role, "\""));
  }
  MINITF_RETURN_IF_ERROR(f.Size("memory_limit", &job->memory_limit));
  int64_t perf = job->perf_control;
  MINITF_RETURN_IF_ERROR(f.Integer("perf_control", &perf, 0, 100));
  job->perf_control = static_cast<int>(perf);
  MINITF_RETURN_IF_ERROR(f.Number("start_s", &job->start_s, 0));
  MINITF_RETURN_IF_ERROR(f.String("pacing", &job->pacing));
  if (job->pacing != "precise" && job->pacing != "antman") {
    return f.Error("pacing",
                   absl::StrCat("must be \"precise\" or \"antman\", got \"", job->pacing, "\""));
  }
  MINITF_RETURN_IF_ERROR(f.String("stream_priority", &job->stream_priority));
  if (f.Has("stream_priority") && !se::ParseStreamPriority(job->stream_priority).ok()) {
    return f.Error("stream_priority", absl::StrCat("must be \"high\", \"default\" or \"low\", got \"",
                                                   job->stream_priority, "\""));
  }
  return absl::OkStatus();
}

absl::Status ParseAction(const Json& j, const std::string& file, const std::string& path,
                         const std::set<std::string>& jobs, TimelineAction* action) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("scenario '", file, "': ", path, " must be an object"));
  }
  Fields f(j, file, path);
  if (!f.Has("at_s")) return f.Error("at_s", "is missing");
  MINITF_RETURN_IF_ERROR(f.Number("at_s", &action->at_s, 0));
  MINITF_RETURN_IF_ERROR(f.String("job", &action->job, /*required=*/true));
  if (!jobs.count(action->job)) {
    return f.Error("job", absl::StrCat("names no job of the scenario: \"", action->job, "\""));
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

absl::Status CheckJobs(const Scenario& s, const std::string& file) {
  if (s.jobs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("scenario '", file, "': jobs is empty"));
  }
  std::set<std::string> names;
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    if (!names.insert(s.jobs[i].name).second) {
      return absl::InvalidArgumentError(absl::StrCat("scenario '", file, "': jobs[", i,
                                                     "].name \"", s.jobs[i].name,
                                                     "\" is given twice"));
    }
  }
  return absl::OkStatus();
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
    return absl::InvalidArgumentError(absl::StrCat("not a size: \"", text, "\""));
  }
  return bytes;
}

absl::StatusOr<Scenario> ParseScenarioJson(absl::string_view content,
                                           absl::string_view file_name) {
  const std::string file(file_name);
  Json root = Json::parse(content.begin(), content.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat("scenario '", file, "': not valid JSON"));
  }
  if (!root.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("scenario '", file, "': must be a JSON object"));
  }
  Scenario s;
  Fields f(root, file, "");
  s.name = file;
  MINITF_RETURN_IF_ERROR(f.String("name", &s.name));
  MINITF_RETURN_IF_ERROR(f.Number("duration_s", &s.duration_s, 0));
  if (f.Has("device")) {
    const Json& device = root.at("device");
    if (!device.is_object()) return f.Error("device", "must be an object");
    Fields df(device, file, "device");
    MINITF_RETURN_IF_ERROR(df.String("simgpu", &s.simgpu_options));
    MINITF_RETURN_IF_ERROR(df.String("platform", &s.platform));
    if (!s.platform.empty() && s.platform != "SimGPU" && s.platform != "CUDA") {
      return df.Error("platform", absl::StrCat("must be \"SimGPU\" or \"CUDA\", got \"",
                                               s.platform, "\""));
    }
    absl::StatusOr<se::SimGPUOptions> options = se::ParseSimGPUOptions(s.simgpu_options);
    if (!options.ok()) return df.Error("simgpu", options.status().message());
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
  MINITF_RETURN_IF_ERROR(CheckJobs(s, file));
  std::set<std::string> names;
  for (const JobSpec& job : s.jobs) names.insert(job.name);
  if (f.Has("timeline")) {
    const Json& timeline = root.at("timeline");
    if (!timeline.is_array()) return f.Error("timeline", "must be an array of actions");
    for (size_t i = 0; i < timeline.size(); ++i) {
      TimelineAction action;
      MINITF_RETURN_IF_ERROR(
          ParseAction(timeline[i], file, absl::StrCat("timeline[", i, "]"), names, &action));
      s.timeline.push_back(std::move(action));
    }
    std::stable_sort(s.timeline.begin(), s.timeline.end(),
                     [](const TimelineAction& a, const TimelineAction& b) {
                       return a.at_s < b.at_s;
                     });
  }
  return s;
}

absl::StatusOr<Scenario> ParseScenarioCsv(absl::string_view content,
                                          absl::string_view file_name) {
  const std::string file(file_name);
  Scenario s;
  s.name = file;
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
    if (!absl::SimpleAtod(cells[0], &submit) || !std::isfinite(submit) || submit < 0) {
      return error(absl::StrCat("submit_time must be a number >= 0, got \"", cells[0], "\""));
    }
    job.model = absl::AsciiStrToLower(cells[1]);
    if (!KnownModels().count(job.model)) {
      return error(absl::StrCat("model_name must be mlp, cnn or transformer, got \"", cells[1],
                                "\""));
    }
    if (!absl::SimpleAtoi(cells[2], &batch) || batch < 1 || batch > (1 << 16)) {
      return error(absl::StrCat("batch_size must be an integer in 1..65536, got \"", cells[2],
                                "\""));
    }
    if (!absl::SimpleAtoi(cells[3], &iterations) || iterations < 1) {
      return error(absl::StrCat("iterations must be a positive integer, got \"", cells[3], "\""));
    }
    if (!absl::SimpleAtoi(cells[4], &gpus) || gpus != 1) {
      return error(absl::StrCat("gpu_requests must be 1 (jobs share one GPU), got \"", cells[4],
                                "\""));
    }
    if (!absl::SimpleAtoi(cells[5], &priority) || priority < 0) {
      return error(absl::StrCat("priority must be an integer >= 0, got \"", cells[5], "\""));
    }
    job.start_s = submit;
    job.batch_size = static_cast<int>(batch);
    job.steps = iterations;
    job.role = priority == 0 ? JobRole::kGuarantee : JobRole::kOpportunistic;
    s.jobs.push_back(std::move(job));
  }
  if (!header_seen) {
    return absl::InvalidArgumentError(absl::StrCat("scenario '", file, "': the file is empty"));
  }
  MINITF_RETURN_IF_ERROR(CheckJobs(s, file));
  return s;
}

absl::StatusOr<Scenario> LoadScenario(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.good()) return absl::NotFoundError(absl::StrCat("cannot read scenario '", path, "'"));
  std::stringstream content;
  content << in.rdbuf();
  if (absl::EndsWith(path, ".csv")) return ParseScenarioCsv(content.str(), path);
  if (absl::EndsWith(path, ".json")) return ParseScenarioJson(content.str(), path);
  return absl::InvalidArgumentError(
      absl::StrCat("scenario '", path, "': the name must end in .json or .csv"));
}

}  // namespace minitf::harness
