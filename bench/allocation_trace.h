// AllocationTrace: the host allocations of a real training job, recorded and
// replayable against any allocator.
//
// RecordMlpTrainingTrace runs bench/models' MLP through a DirectSession
// (variable initialisation, then `steps` training steps) with the process
// CPU allocator replaced by a recording one (registered at a priority above
// minitf's own, in this file's translation unit), and returns every
// AllocateRaw/DeallocateRaw in the order they happened. Buffers still live at
// the end (the variables) are freed at the end of the trace.
#ifndef MINITF_BENCH_ALLOCATION_TRACE_H_
#define MINITF_BENCH_ALLOCATION_TRACE_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/models/mlp_model.h"

namespace minitf {

struct AllocationEvent {
  int id = 0;           // the buffer: ids are dense, from 0
  bool allocate = true;  // else a free of buffer `id`
  size_t bytes = 0;      // of an allocation
};

struct AllocationTrace {
  std::vector<AllocationEvent> events;
  int num_buffers = 0;
  size_t peak_live_bytes = 0;  // the most requested bytes live at once
};

absl::StatusOr<AllocationTrace> RecordMlpTrainingTrace(const MlpConfig& config,
                                                       int batch_size, int steps);

}  // namespace minitf

#endif  // MINITF_BENCH_ALLOCATION_TRACE_H_
