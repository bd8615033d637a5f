#include "allocator/sub_allocator.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "platform/host_memory.h"

namespace minitf {

SubAllocator::SubAllocator(std::vector<Visitor> alloc_visitors,
                           std::vector<Visitor> free_visitors)
    : alloc_visitors_(std::move(alloc_visitors)), free_visitors_(std::move(free_visitors)) {}

void SubAllocator::VisitAlloc(void* ptr, int index, size_t num_bytes) const {
  for (const Visitor& v : alloc_visitors_) v(ptr, index, num_bytes);
}

void SubAllocator::VisitFree(void* ptr, int index, size_t num_bytes) const {
  for (const Visitor& v : free_visitors_) v(ptr, index, num_bytes);
}

HostSubAllocator::HostSubAllocator(std::vector<Visitor> alloc_visitors,
                                   std::vector<Visitor> free_visitors)
    : SubAllocator(std::move(alloc_visitors), std::move(free_visitors)) {}

void* HostSubAllocator::Alloc(size_t alignment, size_t num_bytes, size_t* bytes_received) {
  *bytes_received = 0;
  // No host has this much memory; refuse before asking the C library.
  constexpr size_t kMaxBytes = size_t{1} << 48;
  if (num_bytes == 0 || num_bytes > kMaxBytes) return nullptr;
  alignment = std::max(alignment, alignof(std::max_align_t));
  // aligned_alloc needs a size that is a multiple of the alignment.
  const size_t rounded = (num_bytes + alignment - 1) / alignment * alignment;
  // Within what the process may hold (HostMemoryBudget): past it, the
  // allocator reports the request as out of memory.
  if (!HostMemoryBudget::Process().TryReserve(static_cast<int64_t>(rounded))) return nullptr;
  void* ptr = std::aligned_alloc(alignment, rounded);
  if (ptr == nullptr) {
    HostMemoryBudget::Process().Release(static_cast<int64_t>(rounded));
    return nullptr;
  }
  *bytes_received = rounded;
  VisitAlloc(ptr, 0, rounded);
  return ptr;
}

void HostSubAllocator::Free(void* ptr, size_t num_bytes) {
  if (ptr == nullptr) return;
  VisitFree(ptr, 0, num_bytes);
  std::free(ptr);
  HostMemoryBudget::Process().Release(static_cast<int64_t>(num_bytes));
}

}  // namespace minitf
