#include "device/gpu/gpu_sub_allocators.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "platform/host_memory.h"

namespace minitf {

DeviceMemorySubAllocator::DeviceMemorySubAllocator(se::StreamExecutor* executor)
    : SubAllocator({}, {}), executor_(executor) {}

void* DeviceMemorySubAllocator::Alloc(size_t alignment, size_t num_bytes,
                                      size_t* bytes_received) {
  *bytes_received = 0;
  se::DeviceMemoryBase mem = executor_->Allocate(num_bytes);
  if (mem.is_null()) return nullptr;
  // Device allocations are at least 256-byte aligned on every platform.
  if (reinterpret_cast<uintptr_t>(mem.opaque()) % alignment != 0) {
    executor_->Deallocate(&mem);
    return nullptr;
  }
  *bytes_received = num_bytes;
  VisitAlloc(mem.opaque(), executor_->device_ordinal(), num_bytes);
  return mem.opaque();
}

void DeviceMemorySubAllocator::Free(void* ptr, size_t num_bytes) {
  if (ptr == nullptr) return;
  VisitFree(ptr, executor_->device_ordinal(), num_bytes);
  se::DeviceMemoryBase mem(ptr, num_bytes);
  executor_->Deallocate(&mem);
}

std::string DeviceMemorySubAllocator::Name() const {
  return absl::StrCat("device_memory_", executor_->device_ordinal());
}

PinnedHostSubAllocator::PinnedHostSubAllocator(se::StreamExecutor* executor)
    : SubAllocator({}, {}), executor_(executor) {}

void* PinnedHostSubAllocator::Alloc(size_t alignment, size_t num_bytes,
                                    size_t* bytes_received) {
  *bytes_received = 0;
  // Pinned memory is host memory: within the process's budget, with the
  // host tensors' pool (platform/host_memory.h).
  HostMemoryBudget& budget = HostMemoryBudget::Process();
  if (!budget.TryReserve(static_cast<int64_t>(num_bytes))) return nullptr;
  void* ptr = executor_->HostMemoryAllocate(num_bytes);
  if (ptr == nullptr) {
    budget.Release(static_cast<int64_t>(num_bytes));
    return nullptr;
  }
  if (reinterpret_cast<uintptr_t>(ptr) % alignment != 0) {
    executor_->HostMemoryDeallocate(ptr, num_bytes);
    budget.Release(static_cast<int64_t>(num_bytes));
    return nullptr;
  }
  *bytes_received = num_bytes;
  VisitAlloc(ptr, executor_->device_ordinal(), num_bytes);
  return ptr;
}

void PinnedHostSubAllocator::Free(void* ptr, size_t num_bytes) {
  if (ptr == nullptr) return;
  VisitFree(ptr, executor_->device_ordinal(), num_bytes);
  executor_->HostMemoryDeallocate(ptr, num_bytes);
  HostMemoryBudget::Process().Release(static_cast<int64_t>(num_bytes));
}

std::string PinnedHostSubAllocator::Name() const {
  return absl::StrCat("pinned_host_", executor_->device_ordinal());
}

}  // namespace minitf
