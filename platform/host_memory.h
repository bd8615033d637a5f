// How much host memory this process can have: the machine's physical memory,
// lowered by the memory cgroup it runs in (a container's limit: cgroup v2
// `memory.max`, v1 `memory.limit_in_bytes`) and by its resource limits
// (`ulimit -d`, `ulimit -v`). Allocator limits above it are
// lowered to it, so a runaway graph ends with RESOURCE_EXHAUSTED rather than
// with the kernel's OOM killer.
//
//   const int64_t limit = HostMemoryLimitBytes();  // 0: unknown
#ifndef MINITF_PLATFORM_HOST_MEMORY_H_
#define MINITF_PLATFORM_HOST_MEMORY_H_

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

}  // namespace minitf

#endif  // MINITF_PLATFORM_HOST_MEMORY_H_
