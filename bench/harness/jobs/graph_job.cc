#include "bench/harness/jobs/graph_job.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/harness/scenario/json_fields.h"
#include "bench/models/model_util.h"
#include "platform/file.h"
#include "platform/status_macros.h"
#include "runtime/graph_def_io.h"
#include "runtime/npy_io.h"

namespace minitf::harness {
namespace {

using Json = nlohmann::json;

template <typename T, typename Draw>
void Fill(Tensor* t, Draw draw) {
  T* p = t->flat<T>().data();
  const int64_t n = t->NumElements();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(draw());
}

// Values drawn as `feed` says, converted to the tensor's dtype.
template <typename T>
void FillRandom(const FeedSpec& feed, std::mt19937_64* rng, Tensor* t) {
  if (feed.random == "ones" || feed.random == "zeros") {
    const double value = feed.random == "ones" ? 1 : 0;
    Fill<T>(t, [value] { return value; });
  } else if (feed.random == "normal") {
    std::normal_distribution<double> normal(0, 1);
    Fill<T>(t, [&] { return normal(*rng); });
  } else if (feed.random == "uniform") {
    std::uniform_real_distribution<double> uniform(feed.low, feed.high);
    Fill<T>(t, [&] { return uniform(*rng); });
  } else {
    std::uniform_int_distribution<int64_t> uniform(static_cast<int64_t>(feed.low),
                                                   static_cast<int64_t>(feed.high) - 1);
    Fill<T>(t, [&] { return uniform(*rng); });
  }
}

bool HasNode(const GraphDef& graph, const std::string& name) {
  return std::any_of(graph.node.begin(), graph.node.end(),
                     [&](const NodeDef& n) { return n.name == name; });
}

absl::Status JobError(const JobSpec& spec, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("job '", spec.name, "': ", what));
}

}  // namespace

absl::StatusOr<Tensor> MakeFeed(const std::string& job, const FeedSpec& feed,
                                std::mt19937_64* rng) {
  const std::string what = absl::StrCat("feed '", feed.tensor, "'");
  const std::string caller = absl::StrCat("job '", job, "'");
  if (!feed.file.empty()) {
    absl::StatusOr<Tensor> t = ReadNpyFile(feed.file);
    if (!t.ok()) {
      return absl::Status(t.status().code(),
                          absl::StrCat(caller, ": ", what, ": ", t.status().message()));
    }
    return t;
  }
  MINITF_ASSIGN_OR_RETURN(DataType dtype, FeedDataType(feed.dtype));
  if (dtype == DT_INT32 && feed.random.find("uniform") == 0 &&
      (feed.low < -2147483648.0 || feed.high > 2147483648.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        caller, ": ", what, ": low and high must be within int32's range, got ",
        NumberText(feed.low), " and ", NumberText(feed.high)));
  }
  MINITF_ASSIGN_OR_RETURN(Tensor t,
                          AllocateBatchTensor(caller.c_str(), what, dtype, feed.shape));
  switch (dtype) {
    case DT_FLOAT:
      FillRandom<float>(feed, rng, &t);
      break;
    case DT_DOUBLE:
      FillRandom<double>(feed, rng, &t);
      break;
    case DT_INT32:
      FillRandom<int32_t>(feed, rng, &t);
      break;
    case DT_INT64:
      FillRandom<int64_t>(feed, rng, &t);
      break;
    default:
      // bool: a draw is true when nonzero ("uniform_int" over [0, 2) is a coin).
      FillRandom<bool>(feed, rng, &t);
  }
  return t;
}

absl::StatusOr<JobSpec> GraphJobFromManifest(const std::string& manifest_path,
                                             const std::string& name) {
  MINITF_ASSIGN_OR_RETURN(std::string text,
                          ReadRegularFile(manifest_path, int64_t{1} << 20, "a manifest"));
  const Json manifest = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!manifest.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("manifest '", manifest_path, "' is not a JSON object"));
  }
  const Json graph = {{"file", manifest.value("graph", "graph.pb")},
                      {"init", manifest.value("init", "")},
                      {"train", manifest.value("target", "")},
                      {"feeds", manifest.value("feeds", Json::object())}};
  JobSpec spec;
  spec.name = name;
  spec.model = "graphdef";
  MINITF_RETURN_IF_ERROR(ParseGraphJob(graph, manifest_path, "manifest",
                                       std::filesystem::path(manifest_path).parent_path().string(),
                                       &spec.graph));
  return spec;
}

absl::StatusOr<JobModel> BuildGraphJobModel(const JobSpec& spec) {
  const GraphJobSpec& g = spec.graph;
  absl::StatusOr<GraphDef> graph = ReadGraphDefFile(g.file);
  if (!graph.ok()) {
    return absl::Status(graph.status().code(),
                        absl::StrCat("job '", spec.name, "': ", graph.status().message()));
  }
  JobModel job;
  job.graph = *std::move(graph);
  for (const auto& [field, op] : {std::pair{"init", g.init}, std::pair{"train", g.train}}) {
    if (!op.empty() && !HasNode(job.graph, op)) {
      return JobError(spec, absl::StrCat("graph.", field, ": '", g.file, "' has no node '", op,
                                         "'"));
    }
  }
  job.init = g.init;
  job.train = g.train;
  std::mt19937_64 rng(1);
  for (const FeedSpec& feed : g.feeds) {
    const std::string node = feed.tensor.substr(0, feed.tensor.find(':'));
    if (!HasNode(job.graph, node)) {
      return JobError(spec, absl::StrCat("graph.feeds: '", g.file, "' has no node '", node,
                                         "' to feed '", feed.tensor, "'"));
    }
    MINITF_ASSIGN_OR_RETURN(Tensor t, MakeFeed(spec.name, feed, &rng));
    job.feeds.emplace_back(feed.tensor, std::move(t));
  }
  return job;
}

}  // namespace minitf::harness
