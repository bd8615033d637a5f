#include "bench/harness/experiment/metrics.h"

#include <algorithm>

namespace minitf::harness {

double SteadyStepsPerSecond(const std::vector<StepRecord>& steps) {
  if (steps.size() < 2) return 0;
  const double span = steps.back().time_s - steps.front().time_s;
  if (span <= 0) return 0;
  return static_cast<double>(steps.size() - 1) / span;
}

double StepsPerSecondBetween(const std::vector<StepRecord>& steps, double from_s, double to_s) {
  if (to_s <= from_s) return 0;
  int64_t n = 0;
  for (const StepRecord& r : steps) {
    if (r.time_s >= from_s && r.time_s < to_s) ++n;
  }
  return static_cast<double>(n) / (to_s - from_s);
}

JobSummary Summarize(const JobSpec& spec, const std::vector<StepRecord>& steps,
                     double solo_steps_per_s, const std::string& failure) {
  JobSummary s;
  s.name = spec.name;
  s.role = JobRoleName(spec.role);
  s.steps = static_cast<int64_t>(steps.size());
  s.steps_per_s = SteadyStepsPerSecond(steps);
  s.examples_per_s = s.steps_per_s * spec.batch_size;
  s.solo_steps_per_s = solo_steps_per_s;
  s.vs_solo = solo_steps_per_s > 0 ? s.steps_per_s / solo_steps_per_s : 0;
  for (const StepRecord& r : steps) {
    s.peak_device_bytes = std::max(s.peak_device_bytes, r.device_bytes);
    s.peak_host_bytes = std::max(s.peak_host_bytes, r.host_bytes);
    if (r.host_bytes > 0) ++s.host_fallback_steps;
  }
  s.gpu_share = GpuShare(steps);
  s.failure = failure;
  return s;
}

double GpuShare(const std::vector<StepRecord>& steps) {
  double busy_ms = 0, wall_ms = 0;
  for (const StepRecord& r : steps) {
    busy_ms += r.gpu_share * r.step_ms;
    wall_ms += r.step_ms;
  }
  return wall_ms > 0 ? busy_ms / wall_ms : 0;
}

double GuaranteeSoloIdle(const std::vector<JobSummary>& jobs) {
  double busy = 0;
  for (const JobSummary& s : jobs) {
    if (s.role != "guarantee") continue;
    if (s.solo_steps_per_s <= 0) return -1;
    busy += s.solo_gpu_share;
  }
  return std::max(0.0, 1 - busy);
}

}  // namespace minitf::harness
