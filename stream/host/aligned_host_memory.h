// AlignedHostAllocate / AlignedHostFree: plain host memory at a given
// alignment, the "device" memory of the Host platform and the pinned host
// memory of Host and SimGPU.
//
//   void* p = AlignedHostAllocate(1000, 64);   // nullptr when out of memory
//   AlignedHostFree(p, 64);
#ifndef MINITF_STREAM_HOST_ALIGNED_HOST_MEMORY_H_
#define MINITF_STREAM_HOST_ALIGNED_HOST_MEMORY_H_

#include <cstdint>

namespace minitf::se {

// nullptr for size 0 or when the memory cannot be had. `alignment` is a power
// of two.
void* AlignedHostAllocate(uint64_t size, uint64_t alignment);
// REQUIRES: `ptr` came from AlignedHostAllocate with the same alignment, or is null.
void AlignedHostFree(void* ptr, uint64_t alignment);

}  // namespace minitf::se

#endif  // MINITF_STREAM_HOST_ALIGNED_HOST_MEMORY_H_
