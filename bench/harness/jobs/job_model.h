// The model a harness job trains: its training graph, the ops to run once
// and every step, and what it is fed every step, built from the job's spec:
// a built-in model (name, size parameters, batch size; all nodes on the
// job's GPU) or a graph read from a file (`graphdef`, graph_job.h).
//
//   MINITF_ASSIGN_OR_RETURN(JobModel m, BuildJobModel(spec));
//   session->Create(m.graph);
//
// Parameters of the built-in models (defaults in brackets):
//   mlp          features [64], hidden [512], classes [3]
//   cnn          image_size [32], channels [32], classes [3]
//   transformer  seq_len [16], d_model [64], heads [4], hidden [256], classes [3]
//                (heads must divide d_model)
// Every parameter must be in 1..kMaxModelParam and batch_size in
// 1..kMaxBatchSize (what scenario files accept). An unknown model or
// parameter, a value out of range or one the model rejects (an odd cnn
// image_size; a cnn whose (image_size/2)^2 * channels exceeds 2^31-1; cnn
// classes above 3; transformer heads not dividing d_model) is
// InvalidArgument naming the job and the parameter; a batch that host
// memory cannot hold is ResourceExhausted naming the job, the feed and its
// shape. Sizes that fit here but not in the GPU fail later, when the job's
// session runs the node that cannot get its memory (ResourceExhausted).
#ifndef MINITF_BENCH_HARNESS_JOBS_JOB_MODEL_H_
#define MINITF_BENCH_HARNESS_JOBS_JOB_MODEL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/harness/scenario/scenario.h"
#include "bench/models/model_util.h"

namespace minitf::harness {

inline constexpr int64_t kMaxModelParam = int64_t{1} << 20;
inline constexpr int kMaxBatchSize = 1 << 16;

struct JobModel {
  GraphDef graph;
  std::string init;  // run once before the steps; "" for none
  std::string train;  // run every step
  std::string loss;   // the built-in models' loss tensor; "" for a graphdef job
  std::vector<std::pair<std::string, Tensor>> feeds;
};

absl::StatusOr<JobModel> BuildJobModel(const JobSpec& spec);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOBS_JOB_MODEL_H_
