// The `graphdef` job model: a co-location job that trains a graph read from
// a GraphDef file, so a scenario can share the GPU between real
// architectures (the ResNet-50 and BERT graphs TensorFlow wrote, in
// tests/fixtures/tf/).
//
//   {"name": "resnet50", "model": "graphdef", "role": "guarantee",
//    "graph": {"file": "../../tests/fixtures/tf/resnet50_train/graph.pb",
//              "init": "init", "train": "train",
//              "feeds": {"images:0": {"shape": [32, 224, 224, 3], "dtype": "float32",
//                                     "random": "normal"},
//                        "labels:0": {"shape": [32], "dtype": "int32",
//                                     "random": "uniform_int", "low": 0, "high": 1000},
//                        "mask:0": "mask.npy"}}}
//
// `file` and .npy feeds are read relative to the scenario file's directory
// unless absolute. `init` is optional; `train` is required. A feed is a
// .npy file name or a random tensor (graph_job_spec.h's FeedSpec: "normal",
// "uniform" with low and high, "uniform_int" with high (excluded) and low,
// "ones", "zeros"), the same form as the fixtures' manifest.json. The job's
// batch_size, which turns steps/s into examples/s, defaults to the first
// dimension of the first feed when that feed is a random tensor (a job fed
// from files gives it, or counts 32).
#ifndef MINITF_BENCH_HARNESS_JOBS_GRAPH_JOB_H_
#define MINITF_BENCH_HARNESS_JOBS_GRAPH_JOB_H_

#include <random>
#include <string>

#include "absl/status/statusor.h"
#include "bench/harness/jobs/job_model.h"
#include "bench/harness/scenario/graph_job_spec.h"
#include "nlohmann/json.hpp"
#include "runtime/tensor.h"

namespace minitf::harness {

// The tensor a FeedSpec asks for: the .npy file's contents, or values drawn
// from `rng`. Errors name `job`, the feed and the file. (A file whose dtype
// or shape the placeholder does not take fails the job's first step, naming
// the tensor.)
absl::StatusOr<Tensor> MakeFeed(const std::string& job, const FeedSpec& feed, std::mt19937_64* rng);

// A graphdef job named `name` from a fixture's manifest.json
// (tests/fixtures/tf/*/manifest.json: "graph", "init", "target", "feeds"),
// its files relative to the manifest's directory. Errors name the manifest.
absl::StatusOr<JobSpec> GraphJobFromManifest(const std::string& manifest_path,
                                             const std::string& name);

// The job's graph, ops and feeds (spec.model == "graphdef"). Errors name
// the job: a file that does not read, an init or train op or a fed tensor
// the graph does not have, a feed that cannot be made.
absl::StatusOr<JobModel> BuildGraphJobModel(const JobSpec& spec);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOBS_GRAPH_JOB_H_
