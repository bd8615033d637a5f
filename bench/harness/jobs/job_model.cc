#include "bench/harness/jobs/job_model.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/harness/jobs/graph_job.h"
#include "bench/models/cnn_model.h"
#include "bench/models/mlp_model.h"
#include "bench/models/transformer_model.h"
#include "platform/status_macros.h"

namespace minitf::harness {
namespace {

constexpr char kGPU[] = "/device:GPU:0";

// The job's parameters over `defaults`; an unknown name is an error.
absl::StatusOr<std::map<std::string, int64_t>> Params(const JobSpec& spec,
                                                      std::map<std::string, int64_t> defaults) {
  for (const auto& [name, value] : spec.model_params) {
    if (!defaults.count(name)) {
      std::set<std::string> known;
      for (const auto& [k, v] : defaults) known.insert(k);
      return absl::InvalidArgumentError(absl::StrCat(
          "job '", spec.name, "': model ", spec.model, " has no parameter '", name,
          "' (it has: ", absl::StrJoin(known, ", "), ")"));
    }
    if (value < 1 || value > kMaxModelParam) {
      return absl::InvalidArgumentError(absl::StrCat("job '", spec.name, "': model ", spec.model,
                                                     " parameter '", name, "' must be in 1..",
                                                     kMaxModelParam, ", got ", value));
    }
    defaults[name] = value;
  }
  return defaults;
}

absl::Status Named(const JobSpec& spec, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("job '", spec.name, "': ", status.message()));
}

JobModel Assemble(TrainingModel model, const Batch& batch) {
  JobModel job;
  job.feeds = batch.Feeds(model);
  job.graph = std::move(model.graph);
  job.init = std::move(model.init);
  job.train = std::move(model.train);
  job.loss = std::move(model.loss);
  return job;
}

}  // namespace

absl::StatusOr<JobModel> BuildJobModel(const JobSpec& spec) {
  if (spec.batch_size < 1 || spec.batch_size > kMaxBatchSize) {
    return absl::InvalidArgumentError(absl::StrCat("job '", spec.name,
                                                   "': batch_size must be in 1..", kMaxBatchSize,
                                                   ", got ", spec.batch_size));
  }
  if (spec.model == "graphdef") return BuildGraphJobModel(spec);
  if (spec.model == "mlp") {
    MINITF_ASSIGN_OR_RETURN(auto p,
                            Params(spec, {{"features", 64}, {"hidden", 512}, {"classes", 3}}));
    MlpConfig config;
    config.features = static_cast<int>(p["features"]);
    config.hidden = static_cast<int>(p["hidden"]);
    config.classes = static_cast<int>(p["classes"]);
    config.device = kGPU;
    absl::StatusOr<TrainingModel> model = BuildMlpModel(config);
    if (!model.ok()) return Named(spec, model.status());
    absl::StatusOr<Batch> batch = MakeRingsBatch(config, spec.batch_size, /*seed=*/1);
    if (!batch.ok()) return Named(spec, batch.status());
    return Assemble(*std::move(model), *batch);
  }
  if (spec.model == "cnn") {
    MINITF_ASSIGN_OR_RETURN(
        auto p, Params(spec, {{"image_size", 32}, {"channels", 32}, {"classes", 3}}));
    CnnConfig config;
    config.image_size = static_cast<int>(p["image_size"]);
    config.channels = static_cast<int>(p["channels"]);
    config.classes = static_cast<int>(p["classes"]);
    config.device = kGPU;
    if (config.classes > 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "job '", spec.name, "': cnn classes must be 2 or 3 (the synthetic images have 3 "
          "patterns), got ", config.classes));
    }
    absl::StatusOr<TrainingModel> model = BuildCnnModel(config);
    if (!model.ok()) return Named(spec, model.status());
    absl::StatusOr<Batch> batch = MakeBarsBatch(config, spec.batch_size, /*seed=*/1);
    if (!batch.ok()) return Named(spec, batch.status());
    return Assemble(*std::move(model), *batch);
  }
  if (spec.model == "transformer") {
    MINITF_ASSIGN_OR_RETURN(auto p, Params(spec, {{"seq_len", 16}, {"d_model", 64}, {"heads", 4},
                                                  {"hidden", 256}, {"classes", 3}}));
    TransformerConfig config;
    config.seq_len = static_cast<int>(p["seq_len"]);
    config.d_model = static_cast<int>(p["d_model"]);
    config.heads = static_cast<int>(p["heads"]);
    config.hidden = static_cast<int>(p["hidden"]);
    config.classes = static_cast<int>(p["classes"]);
    config.device = kGPU;
    absl::StatusOr<TrainingModel> model = BuildTransformerModel(config);
    if (!model.ok()) return Named(spec, model.status());
    absl::StatusOr<Batch> batch = MakeSequenceBatch(config, spec.batch_size, /*seed=*/1);
    if (!batch.ok()) return Named(spec, batch.status());
    return Assemble(*std::move(model), *batch);
  }
  return absl::InvalidArgumentError(absl::StrCat("job '", spec.name, "': unknown model '",
                                                 spec.model, "' (models: mlp, cnn, transformer, graphdef)"));
}

}  // namespace minitf::harness
