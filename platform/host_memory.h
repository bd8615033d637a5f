// How much host memory this process can have: the machine's physical memory,
// lowered by the memory cgroup it runs in (a container's limit: cgroup v2
// `memory.max`, v1 `memory.limit_in_bytes`) and by its resource limits
// (`ulimit -d`, `ulimit -v`). Allocator limits above it are
// lowered to it, so a runaway graph ends with RESOURCE_EXHAUSTED rather than
// with the kernel's OOM killer.
//
//   const int64_t limit = HostMemoryLimitBytes();  // 0: unknown
//   if (!HostMemoryBudget::Process().TryReserve(bytes)) return nullptr;
//   ...
//   HostMemoryBudget::Process().Release(bytes);
#ifndef MINITF_PLATFORM_HOST_MEMORY_H_
#define MINITF_PLATFORM_HOST_MEMORY_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace minitf {

// The machine's physical memory in bytes (0 when it cannot be told).
int64_t PhysicalMemoryBytes();

// The memory limit of the cgroup at `cgroup_dir` (a cgroup v2 directory
// holding memory.max, or a v1 memory controller's holding
// memory.limit_in_bytes); 0 when it sets none ("max", or v1's huge value)
// or has no such file.
int64_t CgroupMemoryLimitBytes(const std::string& cgroup_dir);

// The least of this process's soft RLIMIT_DATA and RLIMIT_AS; 0 when both
// are unlimited.
int64_t ResourceLimitBytes();

// The least of the physical memory, this process's cgroup limit (read from
// /proc/self/cgroup under /sys/fs/cgroup) and its resource limits; 0 when
// none is known.
int64_t HostMemoryLimitBytes();

// The host memory this process's allocators may hold together: the pools
// of host tensors (the host sub-allocator's blocks) and SimGPU's device
// memory, which is host memory too. What a budget allows is less than the
// process may have, by a margin for all else it holds (code, libraries,
// threads' stacks, the heap): a runaway graph then ends with
// RESOURCE_EXHAUSTED naming the node, never with the OOM killer. Thread-safe.
class HostMemoryBudget {
 public:
  // Of a process allowed `limit_bytes` (HostMemoryLimitBytes; 0 unknown):
  // the budget's limit, limit_bytes less 1/8 of it, and less at least
  // 256 MiB; 0 (unlimited) when limit_bytes is 0.
  static int64_t LimitFor(int64_t limit_bytes);

  // The process's: LimitFor(HostMemoryLimitBytes()), made on first use.
  static HostMemoryBudget& Process();

  // limit_bytes 0: unlimited (every reservation succeeds).
  explicit HostMemoryBudget(int64_t limit_bytes) : limit_(limit_bytes) {}
  HostMemoryBudget(const HostMemoryBudget&) = delete;
  HostMemoryBudget& operator=(const HostMemoryBudget&) = delete;

  // Takes `bytes` if the reserved total stays within the limit.
  bool TryReserve(int64_t bytes);
  // Gives back `bytes` taken by TryReserve.
  void Release(int64_t bytes);

  int64_t limit() const { return limit_; }
  int64_t reserved() const { return reserved_.load(std::memory_order_relaxed); }

 private:
  const int64_t limit_;
  std::atomic<int64_t> reserved_{0};
};

}  // namespace minitf

#endif  // MINITF_PLATFORM_HOST_MEMORY_H_
