// SmPoolState: the streaming multiprocessors (SMs) of a SimGPU device in
// timing mode, and the kernels sharing them, as a fluid model driven by
// explicit times (no clock, no threads, no locks: its owner keeps those).
//
//   SmPoolState pool;
//   pool.Init({.sm_count = 132, .share = SimGPUOptions::Share::kPriority,
//              .timeslice_ns = 2'000'000, .drain_ns = 100'000});
//   const int k = pool.Add({.rank = 0, .width = 66, .work_ns = 1e6}, now_ns);
//   pool.AdvanceTo(now_ns + 2'000'000);
//   pool.kernel(k).state == SmKernel::State::kDone;   // ended at now + 1 ms
//
// The model. Each kernel has a width (the SMs its thread blocks fill when it
// runs alone: its grid over the blocks an SM holds, at most every SM) and
// its work (how long it takes at that width). It progresses at the rate
// sms/width, where sms is what it holds now, so a kernel alone runs for its
// modeled time and two kernels whose widths add up to at most the device's
// SMs run side by side at full speed. The SMs go to the kernels in order
// (below), each taking up to its width from what is left; a kernel that
// gets none waits. Blocks are short next to a kernel, so SMs change hands
// when the set of kernels changes, not block by block, with one exception
// that stands for the blocks in flight: a kernel that joined less than
// `drain_ns` ago takes only SMs nobody holds; it takes held ones, in its
// order, once the drain time has passed (a running kernel's blocks finish
// before the newcomer's are scheduled on those SMs). A kernel whose body
// runs on the host (`pinned`) keeps its SMs until its body returns.
//
// Order and sharing, by `share` (SimGPUOptions::Share), each kernel being
// of a context (a process attached to a shared device, or 0 alone):
//   priority   one order for every kernel: stream priority (rank, lower
//              first), then arrival (ticket). A process's own streams
//              always work this way (its kernels are all of context 0).
//   timeslice  only the kernels of the slice's context hold SMs, in
//              priority order; a slice lasts `timeslice_ns`; when it ends
//              while another context has a kernel, the context whose
//              kernel has waited longest gets the next slice, after the
//              drain time (the old context's blocks finish meanwhile). A
//              context with no kernel left gives the device up at once; a
//              context alone is never switched out.
//   mps        every context's kernels at once, as MPS clients: the
//              order is the client priority level (NORMAL before
//              BELOW_NORMAL, CUDA_MPS_CLIENT_PRIORITY), then arrival across
//              contexts and priority within one (a context's kernels take
//              its places in the arrival order, sorted by priority); each
//              context holds at most `cap` SMs (its active-thread
//              percentage of the device).
// In every mode, the kernels of one SM partition of a context (a green
// context) hold at most the partition's SMs together.
// Kernels may join in the future (a stream's next kernel is ready when its
// previous one ends); they wait, holding nothing, until then.
//
// The state is a plain object with no pointers, so it can live in a
// shared-memory segment (sim_gpu_shared_device.h). Not thread-safe.
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_SM_POOL_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_SM_POOL_H_

#include <cstdint>
#include <limits>

#include "stream/sim_gpu/sim_gpu_options.h"

namespace minitf::se {

struct SmKernel {
  enum class State : uint8_t { kFree, kPending, kActive, kDone };
  State state = State::kFree;
  bool pinned = false;    // Its body runs on the host: it keeps its SMs.
  bool detached = false;  // Nobody waits for it: freed when done.
  bool defers = false;    // Of a context that defers to the others (below).
  int32_t pid = 0;        // The process that added it (a shared pool's liveness).
  uint32_t context = 0;
  int32_t rank = 0;
  int32_t client_priority = 0;  // Its context's MPS client priority level (mps).
  uint64_t ticket = 0;
  double width = 0;       // SMs, (0, sm_count].
  double cap = 0;         // SMs its context may hold in all (mps).
  uint32_t partition = 0;  // Its SM partition in its context (0: none).
  double partition_cap = 0;  // SMs its partition may hold in all (its newest kernel's).
  double left_ns = 0;     // Work left, in time at full width.
  double sms = 0;         // SMs it holds now.
  // What it held when the pool's clock reached its present time: SMs given
  // it at that very time have no blocks on them yet.
  double sms_at_clock = 0;
  int64_t begin_ns = 0;   // When it joins.
  int64_t takes_ns = 0;   // From then on it may take held SMs.
  int64_t end_ns = 0;     // When it ended (kDone).
  int32_t preemptions = 0;  // Times it lost every SM before it ended.
};

struct SmPoolConfig {
  int sm_count = 80;
  SimGPUOptions::Share share = SimGPUOptions::Share::kPriority;
  int64_t timeslice_ns = 2'000'000;
  int64_t drain_ns = 100'000;
};

// What a kernel asks of the pool.
struct SmRequest {
  int32_t pid = 0;
  uint32_t context = 0;
  int32_t rank = 0;
  double width = 0;      // Clamped to (0, sm_count].
  double cap_fraction = 1;  // Its context's share of the SMs (mps), (0, 1].
  // Its context's MPS client priority level (mps): 0 NORMAL, 1 BELOW_NORMAL
  // (CUDA_MPS_CLIENT_PRIORITY); a lower level's kernels come first.
  int32_t client_priority = 0;
  // Its stream's SM partition within its context (a green context,
  // stream/sm_partition.h; 0: none) and that partition's share of the SMs,
  // (0, 1]. The kernels of one partition hold at most that share together,
  // in every sharing mode; the newest kernel's share is the partition's.
  uint32_t partition = 0;
  double partition_fraction = 1;
  double work_ns = 0;
  bool pinned = false;
  // Its context joins only while no other context that does not defer has
  // a kernel in the pool, and has had none for `defer_idle_ns`
  // (OthersBusy, OthersLastEnd; sim_gpu_sm_run.h waits for that).
  bool defers = false;
  int64_t defer_idle_ns = 0;
};

class SmPoolState {
 public:
  static constexpr int kMaxKernels = 256;
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  void Init(const SmPoolConfig& config);
  const SmPoolConfig& config() const { return config_; }

  // Adds a kernel that joins at `ready_ns` (now, when that has passed on
  // the pool's clock); its index, or -1 when kMaxKernels are there.
  int Add(const SmRequest& request, int64_t ready_ns);
  // Moves the pool's clock to `t_ns` (never back), running every event
  // before it in order: kernels joining and ending, drain times passing,
  // slices ending.
  void AdvanceTo(int64_t t_ns);
  // Runs every event up to `t_ns`, leaving the clock at the last of them
  // (where it was, if none): a kernel added afterwards for a time between
  // that event and `t_ns`, the next of a stream whose thread comes late,
  // still joins at that time, as its stream's queue on a GPU would have
  // started it. Threads that look at the pool use this, not AdvanceTo.
  void RunEventsUntil(int64_t t_ns);
  // When kernel `i` joins (pending) or, holding what it holds now, ends
  // (active); kNever while it holds nothing; its end when done.
  int64_t ProjectedEnd(int i) const;
  // The next event of the whole pool after its clock; kNever for none.
  int64_t NextEvent() const;
  // Kernel `i`'s body returned: it holds on for `work_ns` more.
  void Unpin(int i, double work_ns);
  // Frees kernel `i`'s place (done), or leaves it to end unwatched.
  void Free(int i);
  void Detach(int i);
  // Frees every kernel of process `pid` at once (it died).
  void RemoveProcess(int32_t pid);

  const SmKernel& kernel(int i) const { return kernels_[i]; }
  int64_t clock_ns() const { return clock_ns_; }
  // Kernels joined and holding no SM.
  int Waiting() const;
  // Whether a kernel of another context than `context`, of one that does
  // not defer, is pending or active.
  bool OthersBusy(uint32_t context) const;
  // When the last kernel of a context that does not defer left the pool
  // (its end, or its removal); the far past before any did.
  int64_t OthersLastEnd() const { return others_last_end_ns_; }
  // Slices that ended with another context waiting.
  int64_t switches() const { return switches_; }
  // Changes with every change of the pool: a waiter that sees it change
  // wakes the others.
  uint64_t version() const { return version_; }

 private:
  bool Live(int i) const { return kernels_[i].state == SmKernel::State::kActive; }
  void Progress(int64_t t_ns);
  // Retires, activates, rotates the slice and hands out the SMs at the
  // clock.
  void Settle();
  void Rotate();
  void Allocate();
  // The kernels to hand SMs to, in order; returns how many.
  int Order(int* order) const;
  uint32_t RunningContext() const;

  SmPoolConfig config_;
  int64_t clock_ns_ = std::numeric_limits<int64_t>::min();
  uint64_t next_ticket_ = 0;
  // Timeslice: the slice's context (0: none yet), the one draining before
  // it until slice_begin_ns_, when the slice ends (kNever: nobody else
  // waits), and its start, slices being back to back from there.
  uint32_t slice_context_ = 0;
  uint32_t draining_context_ = 0;
  int64_t slice_begin_ns_ = 0;
  int64_t slice_end_ns_ = kNever;
  int64_t switches_ = 0;
  // The time the kernels' sms_at_clock were taken at.
  int64_t allocated_at_ns_ = std::numeric_limits<int64_t>::min();
  uint64_t version_ = 0;
  int64_t others_last_end_ns_ = std::numeric_limits<int64_t>::min();
  SmKernel kernels_[kMaxKernels];
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_SM_POOL_H_
