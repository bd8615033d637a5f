// RunOnSmPool: how a kernel's thread runs its kernel on an SmPoolState
// (sim_gpu_sm_pool.h), whoever keeps the pool: a device of one process
// (LocalEngineTurns) or a shared-memory segment (SharedSimGPUDevice). The
// keeper holds its lock around the call and says how to wait, wake and run
// code unlocked.
//
//   SmWaitOps ops{.wait = ..., .wake_all = ..., .unlocked = ...};
//   absl::StatusOr<SmRunResult> r = RunOnSmPool(&pool, request, ready, body, ops);
//
// A kernel whose request defers first waits until no kernel of another
// context that does not defer is in the pool (request.defers). The kernel
// joins at `ready` on the device's clock (when its stream's work
// before it ended; now, if that has passed). With a body, it runs the body
// once it holds SMs, keeping them (`pinned`) until the body returns, then
// holds on for what `after_body` says of the body's time. It returns at its
// end, or up to 50 us before it (a timed wait costs the host about that
// much): then the kernel ends in the pool unwatched, and the result still
// says its end on the device's clock.
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_SM_RUN_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_SM_RUN_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "stream/sim_gpu/sim_gpu_sm_pool.h"

namespace minitf::se {

// A wait shorter than this is not worth a timed wait: the host pays about
// that much for one (a kernel returns that early, above; the engine's
// compute-mode holds end so).
inline constexpr absl::Duration kShortestHostWait = absl::Microseconds(50);

struct SmWaitOps {
  // Called locked: unlocks, sleeps at most `timeout` or until wake_all,
  // locks again.
  std::function<void(absl::Duration timeout)> wait;
  // Called locked: wakes every waiter.
  std::function<void()> wake_all;
  // Called locked: runs `f` unlocked, then locks again.
  std::function<void(const std::function<void()>& f)> unlocked;
};

struct SmRunResult {
  absl::Time end;       // When it ended, on the device's clock.
  int preemptions = 0;  // Times it lost every SM before it ended.
  bool body_ran = false;
  absl::Status body_status;
  absl::Duration body_time;
};

// How long a kernel holds on after its body, from the body's status and
// time (in full-width time).
using AfterBody = std::function<absl::Duration(const absl::Status& status, absl::Duration body)>;

// REQUIRES: the pool's keeper's lock is held. `body` may be empty (no body
// runs; the kernel holds for request.work_ns).
SmRunResult RunOnSmPool(SmPoolState* pool, SmRequest request, absl::Time ready,
                        const std::function<absl::Status()>& body, const AfterBody& after_body,
                        const SmWaitOps& ops);

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_SM_RUN_H_
