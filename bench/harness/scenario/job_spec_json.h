// The scenario format written back: a job as the JSON object
// ParseJobJson reads (so a parsed job written and parsed again is equal),
// and a scenario file of one job, which is how `minitf colocate
// --processes` hands each `minitf job` process its job as the experiment
// runs it (scaled, its pacing and priority overridden, its device shared).
//
//   std::string file = OneJobScenarioJson(scenario, scenario.jobs[0]);
//
// File names (a graphdef job's graph and .npy feeds) are written absolute,
// so the file reads the same from any directory.
#ifndef MINITF_BENCH_HARNESS_SCENARIO_JOB_SPEC_JSON_H_
#define MINITF_BENCH_HARNESS_SCENARIO_JOB_SPEC_JSON_H_

#include <string>

#include "bench/harness/scenario/scenario.h"

namespace minitf::harness {

// The job object, as text.
std::string JobSpecJson(const JobSpec& spec);

// A scenario of `scenario`'s name, device and duration holding `spec`
// alone, with no timeline.
std::string OneJobScenarioJson(const Scenario& scenario, const JobSpec& spec);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_SCENARIO_JOB_SPEC_JSON_H_
