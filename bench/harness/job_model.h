// The model a harness job trains: its training graph and the batch it is
// fed every step, built from the job's spec (model name, size parameters,
// batch size), all nodes on the job's GPU.
//
//   MINITF_ASSIGN_OR_RETURN(JobModel m, BuildJobModel(spec));
//   session->Create(m.model.graph);
//
// Parameters by model (defaults in brackets):
//   mlp          features [64], hidden [512], classes [3]
//   cnn          image_size [32], channels [32], classes [3]
//   transformer  seq_len [16], d_model [64], heads [4], hidden [256], classes [3]
//                (heads must divide d_model)
// An unknown model or parameter, or a value the model rejects, is
// InvalidArgument naming the job (and the parameter).
#ifndef MINITF_BENCH_HARNESS_JOB_MODEL_H_
#define MINITF_BENCH_HARNESS_JOB_MODEL_H_

#include "absl/status/statusor.h"
#include "bench/harness/scenario.h"
#include "bench/models/model_util.h"

namespace minitf::harness {

struct JobModel {
  TrainingModel model;
  Batch batch;
};

absl::StatusOr<JobModel> BuildJobModel(const JobSpec& spec);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOB_MODEL_H_
