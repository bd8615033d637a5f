// Allocator: the interface every tensor buffer comes from.
//
// A device hands its kernels an Allocator; a Tensor keeps the Allocator that made
// its buffer and returns the buffer to it. cpu_allocator() is the process's host
// allocator: the allocator of the highest-priority factory registered with
// REGISTER_MEM_ALLOCATOR (allocator_registry.h), by default a BFCAllocator over
// host memory (bfc_allocator.h); aligned malloc ("DefaultCPUAllocator") is the
// fallback below it.
//
//   Allocator* a = cpu_allocator();
//   void* p = a->AllocateRaw(Allocator::kAllocatorAlignment, 1024);
//   a->DeallocateRaw(p);
#ifndef MINITF_ALLOCATOR_ALLOCATOR_H_
#define MINITF_ALLOCATOR_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace minitf {

// Per-request options.
struct AllocationAttributes {
  // When true, a failing allocation returns nullptr at once instead of waiting
  // for memory to be freed.
  bool no_retry_on_failure = false;
};

// Counters an allocator may keep. All byte counts are in bytes.
struct AllocatorStats {
  int64_t num_allocs = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
  std::optional<int64_t> bytes_limit;
  int64_t bytes_reserved = 0;
  int64_t peak_bytes_reserved = 0;
  // The largest block that one allocation could get without the pool
  // growing (BFC: its largest free chunk); 0 when unknown.
  int64_t largest_free_block_bytes = 0;

  std::string DebugString() const;
};

// Thread-safe: every method may be called from any thread.
class Allocator {
 public:
  // Every pointer returned by a minitf allocator is aligned to at least this,
  // which is what Eigen's aligned TensorMap expects.
  static constexpr size_t kAllocatorAlignment = 64;

  virtual ~Allocator() = default;

  virtual std::string Name() const = 0;

  // Returns nullptr when the memory cannot be had. `alignment` is a power of two.
  virtual void* AllocateRaw(size_t alignment, size_t num_bytes,
                            const AllocationAttributes& attrs) = 0;
  void* AllocateRaw(size_t alignment, size_t num_bytes) {
    return AllocateRaw(alignment, num_bytes, AllocationAttributes());
  }
  // REQUIRES: `ptr` came from this allocator's AllocateRaw and is still live.
  virtual void DeallocateRaw(void* ptr) = 0;

  // Statistics, when the allocator keeps them.
  virtual std::optional<AllocatorStats> GetStats() const { return std::nullopt; }
  // Resets the counters that describe history (num_allocs, peaks, largest
  // allocation) to the present state.
  virtual void ClearStats() {}

  // Whether RequestedSize and AllocatedSize answer for this allocator's
  // pointers. Allocators that do not remember sizes return false.
  virtual bool TracksAllocationSizes() const { return false; }
  // The `num_bytes` that AllocateRaw was asked for.
  // REQUIRES: TracksAllocationSizes(), and `ptr` is live and came from here.
  virtual size_t RequestedSize(const void* ptr) const { return 0; }
  // The bytes actually set aside for `ptr` (at least RequestedSize).
  // REQUIRES: as RequestedSize.
  virtual size_t AllocatedSize(const void* ptr) const { return RequestedSize(ptr); }
};

// The process-wide host allocator, chosen on the first call (see above; the
// environment variable MINITF_CPU_ALLOCATOR may name another registered one).
// Never null; lives for the whole process. Defined in allocator_registry.cc.
Allocator* cpu_allocator();

}  // namespace minitf

#endif  // MINITF_ALLOCATOR_ALLOCATOR_H_
