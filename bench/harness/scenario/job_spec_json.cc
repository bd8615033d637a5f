#include "bench/harness/scenario/job_spec_json.h"

#include <filesystem>
#include <system_error>

#include "nlohmann/json.hpp"

namespace minitf::harness {
namespace {

using Json = nlohmann::ordered_json;

std::string Absolute(const std::string& file) {
  std::error_code ignored;
  const std::filesystem::path absolute = std::filesystem::absolute(file, ignored);
  return absolute.empty() ? file : absolute.lexically_normal().string();
}

Json GraphJson(const GraphJobSpec& graph) {
  Json j;
  j["file"] = Absolute(graph.file);
  if (!graph.init.empty()) j["init"] = graph.init;
  j["train"] = graph.train;
  Json feeds = Json::object();
  for (const FeedSpec& feed : graph.feeds) {
    if (!feed.file.empty()) {
      feeds[feed.tensor] = Absolute(feed.file);
      continue;
    }
    Json f;
    f["shape"] = feed.shape;
    f["dtype"] = feed.dtype;
    f["random"] = feed.random;
    f["low"] = feed.low;
    f["high"] = feed.high;
    feeds[feed.tensor] = std::move(f);
  }
  j["feeds"] = std::move(feeds);
  return j;
}

Json JobJson(const JobSpec& spec) {
  Json j;
  j["name"] = spec.name;
  j["model"] = spec.model;
  if (spec.model == "graphdef") {
    j["graph"] = GraphJson(spec.graph);
  } else if (!spec.model_params.empty()) {
    j["model_params"] = spec.model_params;
  }
  j["batch_size"] = spec.batch_size;
  j["steps"] = spec.steps;
  j["duration_s"] = spec.duration_s;
  j["role"] = JobRoleName(spec.role);
  if (spec.memory_limit > 0) j["memory_limit"] = spec.memory_limit;
  j["perf_control"] = spec.perf_control;
  j["start_s"] = spec.start_s;
  j["pacing"] = spec.pacing;
  if (!spec.stream_priority.empty()) j["stream_priority"] = spec.stream_priority;
  if (spec.input_ms > 0) j["input_ms"] = spec.input_ms;
  return j;
}

}  // namespace

std::string JobSpecJson(const JobSpec& spec) { return JobJson(spec).dump(2) + "\n"; }

std::string OneJobScenarioJson(const Scenario& scenario, const JobSpec& spec) {
  Json j;
  j["name"] = scenario.name;
  Json device = Json::object();
  if (!scenario.simgpu_options.empty()) device["simgpu"] = scenario.simgpu_options;
  if (!scenario.platform.empty()) device["platform"] = scenario.platform;
  j["device"] = std::move(device);
  j["duration_s"] = scenario.duration_s;
  j["jobs"] = Json::array({JobJson(spec)});
  return j.dump(2) + "\n";
}

}  // namespace minitf::harness
