// SimGpuEngine: the single compute engine of a SimGPU device. Every kernel
// launched on any stream of the device, by any session of the process, goes
// through Execute, which runs one kernel at a time in arrival order (a ticket
// lock: each caller takes the next ticket and waits on a CondVar for its
// turn), so co-located jobs contend for the device as on a real GPU.
//
//   SimGpuEngine engine(SimGpuOptions::Mode::kCompute);
//   absl::Duration charged;
//   absl::Status s = engine.Execute(kernel, ModeledKernelTime(options, kernel.cost),
//                                   &charged);
//
// What a turn does and the busy time it charges, by mode:
//   compute     run the body, hold the engine until `modeled` has passed
//               since the turn began; charge max(modeled, measured body time);
//   timing      skip the body (unless the kernel says run_in_timing_mode:
//               then run it, as compute does), hold for `modeled`; charge
//               exactly `modeled` (max(modeled, body) for a body that ran);
//   functional  run the body, no hold; charge the measured body time.
// A failing body releases the engine at once and charges what it took.
//
// Thread-safe. Execute blocks the calling thread (a stream's worker) for the
// turn.
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_ENGINE_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_ENGINE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "runtime/mutex.h"
#include "stream/kernel.h"
#include "stream/sim_gpu/sim_gpu_options.h"

namespace minitf::se {

class SimGpuEngine {
 public:
  explicit SimGpuEngine(SimGpuOptions::Mode mode) : mode_(mode) {}

  // Runs `kernel` in its turn (see above). Returns the body's status and
  // sets `*charged` to the busy time accounted for the turn.
  absl::Status Execute(const HostKernel& kernel, absl::Duration modeled, absl::Duration* charged);

  // Sum of the busy time charged so far.
  absl::Duration BusyTime() const;
  // Kernels executed so far.
  int64_t KernelCount() const;

 private:
  const SimGpuOptions::Mode mode_;

  mutable Mutex mu_;
  CondVar turn_cv_;  // Signalled when now_serving_ advances.
  uint64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t now_serving_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Duration busy_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
  int64_t kernel_count_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_ENGINE_H_
