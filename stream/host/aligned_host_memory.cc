#include "stream/host/aligned_host_memory.h"

#include <new>

namespace minitf::se {

void* AlignedHostAllocate(uint64_t size, uint64_t alignment) {
  if (size == 0) return nullptr;
  return ::operator new(size, std::align_val_t(alignment), std::nothrow);
}

void AlignedHostFree(void* ptr, uint64_t alignment) {
  if (ptr == nullptr) return;
  ::operator delete(ptr, std::align_val_t(alignment));
}

}  // namespace minitf::se
