// JobTrace: what one job did on its devices, step by step, as spans on
// named tracks — the material of the experiment's Chrome trace
// (chrome_trace.h). Built from each step's StepStats (RunOptions FULL_TRACE),
// the idle slots its GpuOpManager inserted, and the pacing sleep or
// suspension at the step boundary.
//
// Tracks of a job:
//   "steps"              one span per Run ("step 12"), and the boundary's
//                        "pacing sleep" / "suspended" span at its end
//   "GPU compute stream" the GPU's async kernels, in stream order
//   "GPU copies"         _Send/_Recv between host and GPU
//   "idle slots"         idle the GpuOpManager waited before launches
//   "thread N"           kernels run synchronously on executor thread N
// Async spans of one track are made disjoint the way a FIFO stream runs
// them: a kernel starts when it was launched or when the one before it
// finished, whichever is later.
//
// Not thread-safe: the job's thread adds, the harness reads after Join.
#ifndef MINITF_BENCH_HARNESS_JOBS_JOB_TRACE_H_
#define MINITF_BENCH_HARNESS_JOBS_JOB_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "runtime/gpu_op_manager.h"
#include "runtime/step_stats.h"

namespace minitf::harness {

struct TraceSpan {
  std::string name;   // node name, "step 12", "idle", ...
  std::string op;     // the node's op ("" for other spans)
  std::string track;  // see the header comment
  int64_t start_us = 0;  // since the experiment's start
  int64_t dur_us = 0;
};

// What the step boundary idled: from GPUResourceState::Status.
struct BoundaryIdle {
  absl::Duration sleep;
  absl::Duration suspension;
};

class JobTrace {
 public:
  // Spans are timed from `origin`; at most `max_spans` are kept (then the
  // trace is truncated: later steps are dropped whole).
  JobTrace(absl::Time origin, size_t max_spans);

  // Adds one step: Run ran from `run_start` to `run_end`.
  void AddStep(int64_t step, absl::Time run_start, absl::Time run_end, const StepStats& stats,
               const std::vector<GpuOpManager::IdleSlot>& slots, BoundaryIdle idle);

  const std::vector<TraceSpan>& spans() const { return spans_; }
  // Steps dropped because the trace was full.
  int64_t dropped_steps() const { return dropped_steps_; }

 private:
  int64_t Micros(absl::Time t) const;

  const absl::Time origin_;
  const size_t max_spans_;
  std::vector<TraceSpan> spans_;
  int64_t dropped_steps_ = 0;
  // When each async track's last span ended (FIFO order across steps).
  int64_t compute_free_us_ = 0;
  int64_t copies_free_us_ = 0;
};

// A job's spans as a file (what `minitf job --trace` writes and `minitf
// colocate --processes` reads back): {"dropped_steps": N, "spans":
// [[name, op, track, start_us, dur_us], ...]}.
std::string TraceSpansJson(const std::vector<TraceSpan>& spans, int64_t dropped_steps);
// InvalidArgument naming `file_name` when `content` is not such a file.
absl::Status ParseTraceSpansJson(absl::string_view content, absl::string_view file_name,
                                 std::vector<TraceSpan>* spans, int64_t* dropped_steps);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_JOBS_JOB_TRACE_H_
