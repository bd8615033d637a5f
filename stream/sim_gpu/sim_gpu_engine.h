// SimGPUEngine: the single compute engine of a SimGPU device. Every kernel
// launched on any stream of the device, by any session of the process, goes
// through Execute, which runs one kernel at a time, so co-located jobs
// contend for the device as on a real GPU.
//
//   SimGPUEngine engine(SimGPUOptions::Mode::kCompute, absl::Microseconds(100));
//   absl::Duration charged;
//   absl::Status s = engine.Execute(kernel, ModeledKernelTime(options, kernel.cost),
//                                   StreamPriority::kDefault, &charged);
//
// Order (stream_priority.h): the free engine goes to the waiting kernel of
// the highest stream priority, the earliest arrival first among equals (a
// ticket taken on arrival). When a kernel of a higher priority than the
// running one arrives, the running kernel keeps the engine for `preempt`
// more (its thread blocks in flight drain), then yields it and waits again,
// with its ticket and the modeled time it has left. Kernels of one priority
// never preempt each other: with a single priority in use, this is a FIFO.
//
// What a turn does and the busy time it charges, by mode:
//   compute     run the body, hold the engine until `modeled` has passed
//               since the turn began; charge max(modeled, measured body time);
//   timing      skip the body (unless the kernel says run_in_timing_mode:
//               then run it, as compute does), hold for `modeled`; charge
//               exactly `modeled` (max(modeled, body) for a body that ran);
//   functional  run the body, no hold; charge the measured body time.
// A body runs to its end once started; only the hold after it can be
// preempted. A failing body releases the engine at once and charges what it
// took. Time spent preempted is not charged.
//
// The device's clock: a hold ends at its modeled end, begin + modeled, where
// a kernel that skips its body begins at max(when it was ready, the modeled
// end of the kernel before it on the line). So the time a thread takes to wake up
// after a hold is not added to the next kernel's: a device kept busy by
// queued kernels runs them back to back, as a GPU does, however slowly the
// host's timers fire. A hold that would end within 50 us is not waited for
// at all (a timed wait costs the host about that much): the engine is free
// for the next kernel at once, which still begins at the modeled end, so
// the device's clock is kept; another stream may take the engine up to
// 50 us early.
//
// Who waits and who runs is kept by an EngineTurns (sim_gpu_engine_turns.h):
// the engine's own, or a shared device's line that several processes wait
// in (sim_gpu_shared_device.h). The counters are this engine's: the kernels
// this process ran.
//
// Thread-safe. Execute blocks the calling thread (a stream's worker) for the
// turn.
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_ENGINE_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_ENGINE_H_

#include <array>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "platform/mutex.h"
#include "stream/kernel.h"
#include "stream/sim_gpu/sim_gpu_engine_turns.h"
#include "stream/sim_gpu/sim_gpu_options.h"
#include "stream/stream_priority.h"

namespace minitf::se {

class SmPartition;

class SimGPUEngine {
 public:
  // `turns`: the line to wait in (not owned; outlives the engine); null:
  // the engine's own. `sm_count`: the device's SMs (timing mode's SM model).
  SimGPUEngine(SimGPUOptions::Mode mode, absl::Duration preempt, EngineTurns* turns = nullptr,
               int sm_count = 80);

  // Runs `kernel` in its turn (see above). Returns the body's status and
  // sets `*charged` to the busy time accounted for the kernel.
  absl::Status Execute(const HostKernel& kernel, absl::Duration modeled,
                       StreamPriority priority, absl::Duration* charged);
  // The same for a kernel that was ready to run at `ready` on the device's
  // clock (when its stream's previous work ended there, or when it was
  // launched, whichever is later); sets `*held_until` to when its hold ended
  // on that clock. `partition`: the SMs its stream may use (timing mode;
  // null: every SM).
  absl::Status Execute(const HostKernel& kernel, absl::Duration modeled,
                       StreamPriority priority, absl::Time ready, absl::Duration* charged,
                       absl::Time* held_until, const SmPartition* partition = nullptr);

  // Sum of the busy time charged so far.
  absl::Duration BusyTime() const;
  // The same, per op family (KernelCost::family), indexed by KernelFamily;
  // the families' times add up to BusyTime().
  std::array<absl::Duration, kKernelFamilyCount> BusyTimeByFamily() const;
  // Kernels executed so far.
  int64_t KernelCount() const;
  // The same, per op family, indexed by KernelFamily.
  std::array<int64_t, kKernelFamilyCount> KernelCountByFamily() const;
  // Of those, the kernels whose body ran (every one but those timing mode
  // skipped).
  int64_t BodyCount() const;
  // Times a running kernel yielded the engine to a higher-priority one.
  int64_t PreemptionCount() const;
  // Kernels waiting for the engine now (a preempted one included).
  int QueuedKernels() const;

 private:
  // Holds the engine, which `turn` has, for `hold` of engine time from
  // `begin` (now, or earlier on the device's clock), yielding to
  // higher-priority kernels on the way (see above). Sets `*held_until` to
  // when the hold ended on the device's clock.
  absl::Status Hold(const EngineTurn& turn, absl::Time begin, absl::Duration hold,
                    absl::Time* held_until);
  // Timing mode: the kernel on the device's SMs (sim_gpu_sm_pool.h).
  absl::Status ExecuteOnSms(const HostKernel& kernel, absl::Duration modeled,
                            StreamPriority priority, absl::Time ready, absl::Duration* charged,
                            absl::Time* held_until, const SmPartition* partition);
  void Count(KernelFamily family, absl::Duration charged, bool body_ran);

  const SimGPUOptions::Mode mode_;
  const absl::Duration preempt_;
  const int sm_count_;
  const std::unique_ptr<EngineTurns> own_turns_;  // Null with a shared line.
  EngineTurns* const turns_;

  mutable Mutex mu_;
  absl::Duration busy_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
  std::array<absl::Duration, kKernelFamilyCount> busy_by_family_ ABSL_GUARDED_BY(mu_) = {};
  int64_t kernel_count_ ABSL_GUARDED_BY(mu_) = 0;
  std::array<int64_t, kKernelFamilyCount> kernel_count_by_family_ ABSL_GUARDED_BY(mu_) = {};
  int64_t body_count_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t preemptions_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_ENGINE_H_
