// The minimal host allocator: aligned malloc with counters, limited to what
// this process may have (HostMemoryLimitBytes), registered as
// "DefaultCPUAllocator" (below the BFC one, see host_bfc_allocator.cc).
#include <algorithm>
#include <cstdlib>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "allocator/allocator.h"
#include "allocator/allocator_registry.h"
#include "fmt/format.h"
#include "platform/host_memory.h"
#include "platform/mutex.h"

namespace minitf {

std::string AllocatorStats::DebugString() const {
  return fmt::format(
      "num_allocs={} bytes_in_use={} peak_bytes_in_use={} largest_alloc_size={} "
      "bytes_limit={} bytes_reserved={} peak_bytes_reserved={} largest_free_block_bytes={}",
      num_allocs, bytes_in_use, peak_bytes_in_use, largest_alloc_size,
      bytes_limit ? fmt::format("{}", *bytes_limit) : std::string("none"),
      bytes_reserved, peak_bytes_reserved, largest_free_block_bytes);
}

namespace {

// Aligned malloc. Sizes are remembered so bytes_in_use stays exact.
class CpuAllocator final : public Allocator {
 public:
  CpuAllocator() {
    const int64_t limit = HostMemoryLimitBytes();
    if (limit > 0) stats_.bytes_limit = limit;
  }

  std::string Name() const override { return "cpu"; }

  void* AllocateRaw(size_t alignment, size_t num_bytes,
                    const AllocationAttributes&) override {
    // No host has this much memory; refuse before asking the C library.
    constexpr size_t kMaxBytes = size_t{1} << 48;
    if (num_bytes > kMaxBytes) return nullptr;
    {
      MutexLock lock(&mu_);
      if (stats_.bytes_limit &&
          stats_.bytes_in_use + static_cast<int64_t>(num_bytes) > *stats_.bytes_limit) {
        return nullptr;
      }
    }
    alignment = std::max(alignment, kAllocatorAlignment);
    // aligned_alloc needs a size that is a multiple of the alignment, and a
    // zero-byte request still gets a unique pointer.
    const size_t rounded =
        std::max<size_t>(alignment, (num_bytes + alignment - 1) / alignment * alignment);
    void* ptr = std::aligned_alloc(alignment, rounded);
    if (ptr == nullptr) return nullptr;
    MutexLock lock(&mu_);
    sizes_[ptr] = num_bytes;
    ++stats_.num_allocs;
    stats_.bytes_in_use += static_cast<int64_t>(num_bytes);
    stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
    stats_.largest_alloc_size =
        std::max(stats_.largest_alloc_size, static_cast<int64_t>(num_bytes));
    return ptr;
  }

  void DeallocateRaw(void* ptr) override {
    if (ptr == nullptr) return;
    {
      MutexLock lock(&mu_);
      auto it = sizes_.find(ptr);
      if (it == sizes_.end()) return;  // Not ours: refuse rather than corrupt.
      stats_.bytes_in_use -= static_cast<int64_t>(it->second);
      sizes_.erase(it);
    }
    std::free(ptr);
  }

  std::optional<AllocatorStats> GetStats() const override {
    MutexLock lock(&mu_);
    return stats_;
  }

  bool TracksAllocationSizes() const override { return true; }

  size_t RequestedSize(const void* ptr) const override {
    MutexLock lock(&mu_);
    auto it = sizes_.find(const_cast<void*>(ptr));
    return it == sizes_.end() ? 0 : it->second;
  }

  void ClearStats() override {
    MutexLock lock(&mu_);
    stats_.num_allocs = 0;
    stats_.peak_bytes_in_use = stats_.bytes_in_use;
    stats_.largest_alloc_size = 0;
  }

 private:
  mutable Mutex mu_;
  absl::flat_hash_map<void*, size_t> sizes_ ABSL_GUARDED_BY(mu_);
  AllocatorStats stats_ ABSL_GUARDED_BY(mu_);
};

class MallocAllocatorFactory final : public AllocatorFactory {
 public:
  std::unique_ptr<Allocator> CreateAllocator() override {
    return std::make_unique<CpuAllocator>();
  }
};

}  // namespace

REGISTER_MEM_ALLOCATOR("DefaultCPUAllocator", 100, MallocAllocatorFactory);

}  // namespace minitf
