// A job's steps as the CSV file the harness and `minitf job` write
// (<job>.steps.csv) and read back (a job process's steps, read by the
// experiment that started it).
//
//   const std::string csv = StepsCsv(job.Records());
//   absl::StatusOr<std::vector<StepRecord>> back = ParseStepsCsv(csv, "a.steps.csv");
#ifndef MINITF_BENCH_HARNESS_JOBS_STEPS_CSV_H_
#define MINITF_BENCH_HARNESS_JOBS_STEPS_CSV_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bench/harness/jobs/experiment_job.h"

namespace minitf::harness {

// The header line, then one line per step.
std::string StepsCsv(const std::vector<StepRecord>& steps);

// Reads a StepsCsv back; InvalidArgument naming `file_name` and the line
// otherwise.
absl::StatusOr<std::vector<StepRecord>> ParseStepsCsv(absl::string_view csv,
                                                      absl::string_view file_name);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOBS_STEPS_CSV_H_
