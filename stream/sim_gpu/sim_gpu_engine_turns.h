// EngineTurns: whose turn it is on a SimGPU compute engine — the line of
// waiting kernels and the one running — apart from what a turn does
// (sim_gpu_engine.h). Two kinds keep the line:
//
//   LocalEngineTurns        in this process (a device of one process);
//   SharedSimGPUDevice      in shared memory, so the processes attached to
//                           one shared device wait in one line
//                           (sim_gpu_shared_device.h).
//
//   EngineTurn turn = *turns.Acquire(EngineRank(StreamPriority::kHigh));
//   ... run the kernel ...
//   if (turns.WaitOutranked(turn, end)) turns.Yield(turn);
//   turns.Release(turn);
//
// Order: the free engine goes to the waiting kernel of the lowest rank (the
// highest stream priority), the earliest ticket first among equals.
// Thread-safe.
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_ENGINE_TURNS_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_ENGINE_TURNS_H_

#include <cstdint>
#include <set>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "platform/mutex.h"
#include "stream/sim_gpu/sim_gpu_sm_pool.h"
#include "stream/sim_gpu/sim_gpu_sm_run.h"
#include "stream/stream_priority.h"

namespace minitf::se {

// A kernel's place in the line: its rank (lower goes first) and its ticket,
// taken on arrival.
struct EngineTurn {
  int rank = 0;
  uint64_t ticket = 0;

  auto operator<=>(const EngineTurn&) const = default;
};

// The rank of a kernel of a stream of `priority`: higher priorities rank
// lower, so they go first.
inline int EngineRank(StreamPriority priority) { return -static_cast<int>(priority); }

class EngineTurns {
 public:
  virtual ~EngineTurns() = default;

  // Joins the line with `rank` and blocks until this kernel has the engine.
  // A kernel outranking the running one makes it yield (WaitOutranked).
  virtual absl::StatusOr<EngineTurn> Acquire(int rank) = 0;
  // REQUIRES: `turn` has the engine. Gives it up.
  virtual void Release(const EngineTurn& turn) = 0;
  // REQUIRES: `turn` has the engine. Waits until `deadline` or until a
  // kernel of a lower rank waits; whether one does.
  virtual bool WaitOutranked(const EngineTurn& turn, absl::Time deadline) = 0;
  // REQUIRES: `turn` has the engine. Hands it to the line and waits for it
  // again with the same ticket.
  virtual absl::Status Yield(const EngineTurn& turn) = 0;
  // Kernels waiting now (a yielded one included).
  virtual int Waiting() const = 0;

  // Timing mode: the device's SMs (sim_gpu_sm_pool.h), which this line's
  // kernels share with each other and, shared, with other processes'.
  // Runs a kernel on them as RunOnSmPool does (sim_gpu_sm_run.h), this
  // line's process and context filled in.
  virtual SmRunResult RunOnSms(SmRequest request, absl::Time ready,
                               const std::function<absl::Status()>& body,
                               const AfterBody& after_body) = 0;
  // Kernels joined and holding no SM.
  virtual int SmWaiting() const = 0;
};

// The line of a device of one process.
class LocalEngineTurns final : public EngineTurns {
 public:
  explicit LocalEngineTurns(const SmPoolConfig& sms = SmPoolConfig());

  absl::StatusOr<EngineTurn> Acquire(int rank) override;
  void Release(const EngineTurn& turn) override;
  bool WaitOutranked(const EngineTurn& turn, absl::Time deadline) override;
  absl::Status Yield(const EngineTurn& turn) override;
  int Waiting() const override;
  SmRunResult RunOnSms(SmRequest request, absl::Time ready,
                       const std::function<absl::Status()>& body,
                       const AfterBody& after_body) override;
  int SmWaiting() const override;

 private:
  // Waits until the engine is free and `turn` is first in line, then takes it.
  void AcquireLocked(const EngineTurn& turn) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReleaseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable Mutex mu_;
  CondVar turn_cv_;     // Signalled when the engine is released.
  CondVar preempt_cv_;  // Signalled when a kernel outranking the running one arrives.
  uint64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<EngineTurn> waiting_ ABSL_GUARDED_BY(mu_);
  bool taken_ ABSL_GUARDED_BY(mu_) = false;
  EngineTurn running_ ABSL_GUARDED_BY(mu_);  // While taken_.
  CondVar sm_cv_;  // Signalled when the SMs' pool changes.
  SmPoolState sms_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_ENGINE_TURNS_H_
