#include "bench/harness/graph_job.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/harness/json_fields.h"
#include "bench/models/model_util.h"
#include "platform/file.h"
#include "platform/status_macros.h"
#include "runtime/graph_def_io.h"
#include "runtime/npy_io.h"

namespace minitf::harness {
namespace {

using Json = nlohmann::json;

constexpr absl::string_view kGraphKeys[] = {"file", "init", "train", "feeds"};
constexpr absl::string_view kFeedKeys[] = {"shape", "dtype", "random", "low", "high"};

// numpy's names (what manifest.json writes) and TensorFlow's.
absl::StatusOr<DataType> FeedType(absl::string_view name) {
  if (name == "float32") return DT_FLOAT;
  if (name == "float64") return DT_DOUBLE;
  absl::StatusOr<DataType> t = DataTypeFromString(name);
  if (!t.ok() || *t == DT_RESOURCE) {
    return absl::InvalidArgumentError(
        absl::StrCat("must be float32, float64, int32, int64 or bool, got ", QuotedText(name)));
  }
  return t;
}

std::string Resolve(const std::string& dir, const std::string& file) {
  if (dir.empty() || file.empty() || std::filesystem::path(file).is_absolute()) return file;
  return (std::filesystem::path(dir) / file).lexically_normal().string();
}

absl::Status ParseFeed(const Json& j, const std::string& file, const std::string& path,
                       const std::string& dir, FeedSpec* feed) {
  if (j.is_string()) {
    feed->file = Resolve(dir, j.get<std::string>());
    if (feed->file.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("scenario '", file, "': ", path, " must name a .npy file, got \"\""));
    }
    return absl::OkStatus();
  }
  if (!j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("scenario '", file, "': ", path,
                                                   " must be a .npy file name or an object, got ",
                                                   DescribeJson(j)));
  }
  JsonFields f(j, file, path);
  MINITF_RETURN_IF_ERROR(f.CheckKeys(kFeedKeys));
  MINITF_RETURN_IF_ERROR(f.String("dtype", &feed->dtype, /*required=*/true));
  if (absl::StatusOr<DataType> t = FeedType(feed->dtype); !t.ok()) {
    return f.Error("dtype", t.status().message());
  }
  if (!f.Has("shape") || !j.at("shape").is_array()) {
    return f.Error("shape", "must be an array of dimension sizes");
  }
  for (const Json& d : j.at("shape")) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() > (int64_t{1} << 40)) {
      return f.Error("shape", absl::StrCat("must hold sizes in 0..2^40, got ", DescribeJson(d)));
    }
    feed->shape.push_back(d.get<int64_t>());
  }
  MINITF_RETURN_IF_ERROR(f.String("random", &feed->random, /*required=*/true));
  static const std::set<std::string> kinds = {"normal", "uniform", "uniform_int", "ones",
                                              "zeros"};
  if (!kinds.count(feed->random)) {
    return f.Error("random",
                   absl::StrCat("must be \"normal\", \"uniform\", \"uniform_int\", \"ones\" or "
                                "\"zeros\", got ",
                                QuotedText(feed->random)));
  }
  if (feed->random == "uniform_int" && !f.Has("high")) {
    return f.Error("high", "is required for \"uniform_int\" (the values are below it)");
  }
  MINITF_RETURN_IF_ERROR(f.Number("low", &feed->low, -1e15, 1e15));
  MINITF_RETURN_IF_ERROR(f.Number("high", &feed->high, -1e15, 1e15));
  if ((feed->random == "uniform" || feed->random == "uniform_int") && !(feed->low < feed->high)) {
    return f.Error("high", absl::StrCat("must be above low (", NumberText(feed->low), "), got ",
                                        NumberText(feed->high)));
  }
  return absl::OkStatus();
}

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

absl::Status ParseGraphJob(const Json& j, const std::string& file, const std::string& path,
                           const std::string& dir, GraphJobSpec* out) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("scenario '", file, "': ", path, " must be an object, got ", DescribeJson(j)));
  }
  JsonFields f(j, file, path);
  MINITF_RETURN_IF_ERROR(f.CheckKeys(kGraphKeys));
  MINITF_RETURN_IF_ERROR(f.String("file", &out->file, /*required=*/true));
  if (out->file.empty()) return f.Error("file", "must name a .pb or .pbtxt file, got \"\"");
  out->file = Resolve(dir, out->file);
  MINITF_RETURN_IF_ERROR(f.String("init", &out->init));
  MINITF_RETURN_IF_ERROR(f.String("train", &out->train, /*required=*/true));
  if (out->train.empty()) return f.Error("train", "must name the op run every step, got \"\"");
  if (f.Has("feeds")) {
    const Json& feeds = j.at("feeds");
    if (!feeds.is_object()) {
      return f.Error("feeds", absl::StrCat("must be an object of tensor name -> feed, got ",
                                           DescribeJson(feeds)));
    }
    for (const auto& [tensor, value] : feeds.items()) {
      FeedSpec feed;
      feed.tensor = tensor;
      MINITF_RETURN_IF_ERROR(
          ParseFeed(value, file, absl::StrCat(path, ".feeds.", tensor), dir, &feed));
      out->feeds.push_back(std::move(feed));
    }
  }
  return absl::OkStatus();
}

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
  MINITF_ASSIGN_OR_RETURN(DataType dtype, FeedType(feed.dtype));
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
