// The SubAllocators that put a StreamExecutor's memory under a BFCAllocator:
// DeviceMemorySubAllocator (device memory, StreamExecutor::Allocate) and
// PinnedHostSubAllocator (page-locked host memory the device copies from,
// StreamExecutor::HostMemoryAllocate). They live in device/ because they
// bridge the two bottom layers, stream/ and allocator/, which never include
// each other.
//
//   auto sub = std::make_unique<DeviceMemorySubAllocator>(executor);
//   BFCAllocator bfc(std::move(sub), limit, options);
#ifndef MINITF_DEVICE_GPU_GPU_SUB_ALLOCATORS_H_
#define MINITF_DEVICE_GPU_GPU_SUB_ALLOCATORS_H_

#include <cstddef>
#include <string>

#include "allocator/sub_allocator.h"
#include "stream/stream_executor.h"

namespace minitf {

// Thread-safe. `executor` is not owned and outlives the sub-allocator.
class DeviceMemorySubAllocator final : public SubAllocator {
 public:
  explicit DeviceMemorySubAllocator(se::StreamExecutor* executor);

  // nullptr when the device has no room (never aborts).
  void* Alloc(size_t alignment, size_t num_bytes, size_t* bytes_received) override;
  void Free(void* ptr, size_t num_bytes) override;
  std::string Name() const override;

 private:
  se::StreamExecutor* const executor_;
};

// Thread-safe. `executor` is not owned and outlives the sub-allocator.
class PinnedHostSubAllocator final : public SubAllocator {
 public:
  explicit PinnedHostSubAllocator(se::StreamExecutor* executor);

  void* Alloc(size_t alignment, size_t num_bytes, size_t* bytes_received) override;
  void Free(void* ptr, size_t num_bytes) override;
  std::string Name() const override;

 private:
  se::StreamExecutor* const executor_;
};

}  // namespace minitf

#endif  // MINITF_DEVICE_GPU_GPU_SUB_ALLOCATORS_H_
