// trace.json: the experiment in Chrome's trace event format (open it in
// Perfetto, ui.perfetto.dev, or chrome://tracing).
//
//   process "GPU"          counters: engine utilisation, device memory by job;
//                          the timeline's actions as instant events
//   process "job <name>"   one track per JobTrace track: steps (with pacing
//                          sleeps and suspensions), the GPU compute stream,
//                          GPU copies, idle slots, executor threads
//
// Times are microseconds from the experiment's start.
#ifndef MINITF_BENCH_HARNESS_REPORT_CHROME_TRACE_H_
#define MINITF_BENCH_HARNESS_REPORT_CHROME_TRACE_H_

#include <string>

#include "absl/status/status.h"
#include "bench/harness/experiment/experiment.h"

namespace minitf::harness {

// The trace as a JSON document.
std::string ChromeTraceJson(const ExperimentResult& result);

// Writes ChromeTraceJson to `path`; an error names the file.
absl::Status WriteChromeTrace(const ExperimentResult& result, const std::string& path);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_REPORT_CHROME_TRACE_H_
