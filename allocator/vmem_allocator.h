// VMemAllocator: device memory first, host memory when the device is full
// (AntMan's GPUVMemAllocator, "virtual memory" for tensors).
//
// AllocateRaw asks the device BFCAllocator without waiting; if that fails the
// buffer comes from the host allocator instead, and the allocator records how
// many bytes live on the host and why: kOom when the device's free bytes
// could not hold the request at all, kFragment when they could but no free
// chunk was large enough. DeallocateRaw routes a pointer by ownership: the
// device BFC recognises its own pointers under its own lock, so device frees
// (the hot path) take no lock of VMemAllocator's. A request of zero bytes
// returns nullptr, as the BFCs below do.
//
// The host counters count what the host allocator set aside (its
// AllocatedSize: chunk bytes when it is a BFC), as the device BFC's
// bytes_in_use counts chunk bytes, so device and host figures add up.
//
//   VMemAllocator vmem(device_bfc, host_allocator);
//   void* p = vmem.AllocateRaw(64, bytes);   // device, or host when full
//   vmem.DeallocateRaw(p);
#ifndef MINITF_ALLOCATOR_VMEM_ALLOCATOR_H_
#define MINITF_ALLOCATOR_VMEM_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "allocator/allocator.h"
#include "allocator/bfc_allocator.h"
#include "platform/mutex.h"

namespace minitf {

// Why a buffer went to the host.
enum class SwapReason { kNone, kOom, kFragment };
const char* SwapReasonName(SwapReason reason);  // "NONE", "OOM", "FRAGMENT"

// Counters of the host side. Bytes are those the host allocator set aside
// (its AllocatedSize when it tracks sizes, else the bytes asked for).
struct VMemStats {
  int64_t host_bytes_in_use = 0;
  int64_t peak_host_bytes_in_use = 0;
  int64_t num_host_allocs = 0;
  int64_t num_oom_host_allocs = 0;       // device really was full
  int64_t num_fragment_host_allocs = 0;  // free bytes existed, no chunk fit
  SwapReason last_reason = SwapReason::kNone;
};

// Thread-safe.
class VMemAllocator final : public Allocator {
 public:
  // Neither allocator is owned; both must outlive this one.
  VMemAllocator(BFCAllocator* device_allocator, Allocator* host_allocator);

  std::string Name() const override;
  void* AllocateRaw(size_t alignment, size_t num_bytes,
                    const AllocationAttributes& attrs) override;
  using Allocator::AllocateRaw;
  // Unknown pointers (double free, foreign) are reported and ignored.
  void DeallocateRaw(void* ptr) override;
  // The device allocator's statistics; the host side is in GetVMemStats.
  std::optional<AllocatorStats> GetStats() const override;
  void ClearStats() override;
  bool TracksAllocationSizes() const override { return true; }
  size_t RequestedSize(const void* ptr) const override;
  size_t AllocatedSize(const void* ptr) const override;

  VMemStats GetVMemStats() const;
  // Whether `ptr` is a live host-side allocation of this allocator.
  bool IsOnHost(const void* ptr) const;
  int64_t num_bad_deallocations() const;

  BFCAllocator* device_allocator() const { return device_; }

 private:
  // Constant after construction.
  BFCAllocator* const device_;
  Allocator* const host_;

  // Live host allocations; lets DeallocateRaw skip mu_ while there are none.
  std::atomic<int64_t> num_live_host_{0};
  mutable Mutex mu_;
  struct HostSizes {
    size_t requested = 0;
    size_t allocated = 0;  // what host_bytes_in_use counts
  };
  absl::flat_hash_map<const void*, HostSizes> host_sizes_ ABSL_GUARDED_BY(mu_);
  VMemStats stats_ ABSL_GUARDED_BY(mu_);
  int64_t num_bad_deallocations_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace minitf

#endif  // MINITF_ALLOCATOR_VMEM_ALLOCATOR_H_
