// SharedSimGPUDevice: one SimGPU device shared by several processes, as
// processes (containers) share one real GPU. What they must agree on lives
// in a POSIX shared-memory segment, /dev/shm/minitf-simgpu.<name>.<ordinal>:
//
//   capacity   the device's memory, counted per process (a lease per pid):
//              an allocation fits when every process's bytes together fit;
//   the line   the compute engine's waiting kernels and the running one
//              (EngineTurns), so kernels of every process take turns.
//
// How the processes' kernels take turns (Sharing::Mode):
//
//   timeslice  (the default) as an NVIDIA GPU shares itself between the
//              contexts of processes without MPS: each attachment is a
//              context; while the engine is the current context's it runs
//              that context's kernels (by stream priority, then arrival)
//              for a timeslice; when the slice ends and another context has
//              a kernel waiting, the running kernel yields (after the drain
//              time the engine's `preempt` gives) and the engine goes to
//              the context that has waited longest, for a slice of its own.
//              A context alone on the device keeps it: no slicing when the
//              others are idle. Stream priorities order kernels within a
//              context only.
//   priority   every attachment's kernels in one line by stream priority,
//              as if they were one context's streams (SimGPU's earlier
//              model; no NVIDIA sharing mode does this between processes;
//              kept to compare with).
//
//   mps        (timing mode) as MPS clients: every process's kernels on the
//              SMs at once, each process holding at most its active-thread
//              percentage of them (SetActiveThreadFraction).
//
// In timing mode the kernels share the device's SMs (sim_gpu_sm_pool.h,
// kept in the segment): timeslice runs one context's kernels side by side
// on the SMs during its slice, and priority orders all of them as one
// context's. Compute and functional modes run one kernel at a time, in the
// line below, and do not know mps.
//
// Each process keeps its own address range for its allocations
// (SimGPUMemory); only their sizes are shared.
//
//   absl::StatusOr<std::unique_ptr<SharedSimGPUDevice>> d =
//       SharedSimGPUDevice::Attach("exp1", 0, int64_t{16} << 30);
//   if ((*d)->Reserve(1 << 20)) { ... (*d)->Unreserve(1 << 20); }
//   SimGPUEngine engine(mode, preempt, d->get());   // waits in the shared line
//
// A process that dies, SIGKILL included, loses what it held: its memory
// lease, its waiting kernels and the engine if it had it. The others notice
// within kLivenessPeriod while they wait for the engine, and at once when
// memory does not fit (liveness: kill(pid, 0), so the processes share a PID
// namespace). The segment's lock is a robust process-shared mutex, so a
// process killed inside it wedges nothing; waiting uses futexes on counters
// in the segment, which a dead waiter leaves nothing in.
//
// The first process to attach creates the segment; it stays until
// RemoveSharedSimGPU (whoever started the processes calls it). Thread-safe.
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_SHARED_DEVICE_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_SHARED_DEVICE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "stream/sim_gpu/sim_gpu_engine_turns.h"
#include "stream/sim_gpu/sim_gpu_options.h"

namespace minitf::se {

struct SharedSimGPUState;

// How the processes attached to a shared device take turns on its engine
// (see above). Every attachment must give the same.
struct SharedSimGPUSharing {
  // The option string's share= (sim_gpu_options.h).
  using Mode = SimGPUOptions::Share;
  Mode mode = Mode::kTimeslice;
  absl::Duration timeslice = absl::Milliseconds(2);
  // The device's SMs and the drain time of their blocks (timing mode's SM
  // model, sim_gpu_sm_pool.h).
  int sm_count = 80;
  absl::Duration drain = absl::Microseconds(100);

  bool operator==(const SharedSimGPUSharing&) const = default;
};

class SharedSimGPUDevice final : public EngineTurns {
 public:
  using Sharing = SharedSimGPUSharing;

  // How often a waiting kernel looks for dead processes.
  static constexpr absl::Duration kLivenessPeriod = absl::Milliseconds(50);
  // At most this many processes hold memory at once, and this many kernels
  // wait at once; more wait for a place.
  static constexpr int kMaxProcesses = 64;
  static constexpr int kMaxWaiting = 256;

  // Attaches to device `ordinal` of the shared device `name` (letters,
  // digits, '.', '_', '-'; at most 64), creating it with `capacity` bytes
  // if it does not exist. Each attachment is a context of its own (a
  // process attaches once per device). InvalidArgument for a bad name, or
  // when the existing device's capacity or sharing differs; Internal naming
  // the segment when it cannot be made or mapped, or was left half made.
  static absl::StatusOr<std::unique_ptr<SharedSimGPUDevice>> Attach(absl::string_view name,
                                                                    int ordinal, int64_t capacity,
                                                                    Sharing sharing = Sharing());
  ~SharedSimGPUDevice() override;
  SharedSimGPUDevice(const SharedSimGPUDevice&) = delete;
  SharedSimGPUDevice& operator=(const SharedSimGPUDevice&) = delete;

  // Takes `bytes` of the capacity for this process; false when the
  // processes' bytes together (the dead's given back first) leave too few.
  bool Reserve(int64_t bytes);
  // Gives back `bytes` this process reserved.
  void Unreserve(int64_t bytes);
  // Bytes every live process holds together.
  int64_t BytesInUse();
  // Bytes this process holds.
  int64_t BytesInUseHere();
  int64_t capacity() const { return capacity_; }
  const std::string& segment_name() const { return segment_; }

  // EngineTurns: the line every attached process waits in.
  absl::StatusOr<EngineTurn> Acquire(int rank) override;
  void Release(const EngineTurn& turn) override;
  bool WaitOutranked(const EngineTurn& turn, absl::Time deadline) override;
  absl::Status Yield(const EngineTurn& turn) override;
  int Waiting() const override;
  SmRunResult RunOnSms(SmRequest request, absl::Time ready,
                       const std::function<absl::Status()>& body,
                       const AfterBody& after_body) override;
  int SmWaiting() const override;
  // share=mps: the fraction of the SMs this attachment's kernels may hold
  // together, (0, 1] (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE / 100); 1 at first.
  // Applies to kernels that join from then on.
  void SetActiveThreadFraction(double fraction);
  double active_thread_fraction() const;
  // share=mps: this attachment's MPS client priority level, 0 (NORMAL) or
  // 1 (BELOW_NORMAL), from CUDA_MPS_CLIENT_PRIORITY: the SMs go to the
  // kernels of NORMAL clients first, a BELOW_NORMAL client's running blocks
  // finishing (the drain time) before theirs take its SMs. 0 at first;
  // applies to kernels that join from then on.
  void SetClientPriority(int level);
  // Timing mode: whether this attachment's kernels defer to the others'
  // (the options defer= and defer_idle_us=, sim_gpu_options.h): each waits
  // to join the SMs until no attachment that does not defer has had a
  // kernel there for `idle`.
  void SetDefers(bool defers, absl::Duration idle = absl::ZeroDuration());
  // Times the engine went from one context to another because a timeslice
  // ended with another context waiting (every attachment's together).
  int64_t TimesliceSwitches() const;

 private:
  SharedSimGPUDevice(SharedSimGPUState* state, std::string segment, int64_t capacity,
                     uint32_t context);

  SharedSimGPUState* const state_;  // mapped; unmapped by the destructor
  const std::string segment_;
  const int64_t capacity_;
  const uint32_t context_;  // This attachment's context: 1, 2, ...
  std::atomic<double> active_thread_fraction_{1.0};
  std::atomic<int> client_priority_{0};
  std::atomic<bool> defers_{false};
  std::atomic<int64_t> defer_idle_ns_{0};
};

// Removes the segments of devices 0..count-1 of shared device `name`
// (attached processes keep their mappings). Missing segments are not an
// error.
absl::Status RemoveSharedSimGPU(absl::string_view name, int count);

// "/minitf-simgpu.<name>.<ordinal>": the segment's name for shm_open.
std::string SharedSimGPUSegment(absl::string_view name, int ordinal);

// Ok when `name` can name a shared device; InvalidArgument saying why.
absl::Status ValidateSharedSimGPUName(absl::string_view name);

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_SHARED_DEVICE_H_
