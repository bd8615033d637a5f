#include "bench/harness/jobs/steps_csv.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"

namespace minitf::harness {

std::string StepsCsv(const std::vector<StepRecord>& steps) {
  std::string csv = "time_s,step,step_ms,device_bytes,host_bytes,limit_bytes,perf_control,gpu_share\n";
  for (const StepRecord& r : steps) {
    csv += fmt::format("{:.4f},{},{:.3f},{},{},{},{},{:.4f}\n", r.time_s, r.step, r.step_ms,
                       r.device_bytes, r.host_bytes, r.limit_bytes, r.perf_control, r.gpu_share);
  }
  return csv;
}

absl::StatusOr<std::vector<StepRecord>> ParseStepsCsv(absl::string_view csv,
                                                      absl::string_view file_name) {
  std::vector<StepRecord> steps;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(csv, '\n', absl::SkipEmpty())) {
    if (++line_number == 1) continue;  // The header.
    const std::vector<absl::string_view> f = absl::StrSplit(line, ',');
    StepRecord r;
    const bool ok = f.size() == 8 && absl::SimpleAtod(f[0], &r.time_s) &&
                    absl::SimpleAtoi(f[1], &r.step) && absl::SimpleAtod(f[2], &r.step_ms) &&
                    absl::SimpleAtoi(f[3], &r.device_bytes) &&
                    absl::SimpleAtoi(f[4], &r.host_bytes) &&
                    absl::SimpleAtoi(f[5], &r.limit_bytes) &&
                    absl::SimpleAtoi(f[6], &r.perf_control) && absl::SimpleAtod(f[7], &r.gpu_share);
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat("steps file '", file_name, "' line ",
                                                     line_number, " is not a step: '", line,
                                                     "'"));
    }
    steps.push_back(r);
  }
  return steps;
}

}  // namespace minitf::harness
