#include "bench/harness/scenario/graph_job_spec.h"

#include <filesystem>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/harness/scenario/json_fields.h"
#include "platform/status_macros.h"

namespace minitf::harness {
namespace {

using Json = nlohmann::json;

constexpr absl::string_view kGraphKeys[] = {"file", "init", "train", "feeds"};
constexpr absl::string_view kFeedKeys[] = {"shape", "dtype", "random", "low", "high"};

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
  if (absl::StatusOr<DataType> t = FeedDataType(feed->dtype); !t.ok()) {
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

}  // namespace

absl::StatusOr<DataType> FeedDataType(absl::string_view name) {
  if (name == "float32") return DT_FLOAT;
  if (name == "float64") return DT_DOUBLE;
  absl::StatusOr<DataType> t = DataTypeFromString(name);
  if (!t.ok() || *t == DT_RESOURCE) {
    return absl::InvalidArgumentError(
        absl::StrCat("must be float32, float64, int32, int64 or bool, got ", QuotedText(name)));
  }
  return t;
}

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

}  // namespace minitf::harness
