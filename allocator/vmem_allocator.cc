#include "allocator/vmem_allocator.h"

#include <algorithm>

#include "platform/logging.h"

namespace minitf {

const char* SwapReasonName(SwapReason reason) {
  switch (reason) {
    case SwapReason::kNone:
      return "NONE";
    case SwapReason::kOom:
      return "OOM";
    case SwapReason::kFragment:
      return "FRAGMENT";
  }
  return "UNKNOWN";
}

VMemAllocator::VMemAllocator(BFCAllocator* device_allocator, Allocator* host_allocator)
    : device_(device_allocator), host_(host_allocator) {}

std::string VMemAllocator::Name() const { return "vmem_" + device_->Name(); }

void* VMemAllocator::AllocateRaw(size_t alignment, size_t num_bytes,
                                 const AllocationAttributes& attrs) {
  if (num_bytes == 0) return nullptr;  // Not a failure: nothing to spill.
  AllocationAttributes device_attrs = attrs;
  device_attrs.no_retry_on_failure = true;  // the host is the fallback, not waiting
  if (void* ptr = device_->AllocateRaw(alignment, num_bytes, device_attrs)) return ptr;

  // A snapshot: other threads may change the device pool meanwhile, so the
  // reason is a diagnosis, not a guarantee.
  const SwapReason reason = device_->UnusedBytes() >= BFCAllocator::RoundedBytes(num_bytes)
                                ? SwapReason::kFragment
                                : SwapReason::kOom;
  void* ptr = host_->AllocateRaw(alignment, num_bytes, attrs);
  if (ptr == nullptr) return nullptr;
  const size_t allocated =
      host_->TracksAllocationSizes() ? host_->AllocatedSize(ptr) : num_bytes;
  MutexLock lock(&mu_);
  host_sizes_[ptr] = HostSizes{num_bytes, allocated};
  num_live_host_.fetch_add(1, std::memory_order_relaxed);
  ++stats_.num_host_allocs;
  if (reason == SwapReason::kOom) {
    ++stats_.num_oom_host_allocs;
  } else {
    ++stats_.num_fragment_host_allocs;
  }
  stats_.last_reason = reason;
  stats_.host_bytes_in_use += static_cast<int64_t>(allocated);
  stats_.peak_host_bytes_in_use =
      std::max(stats_.peak_host_bytes_in_use, stats_.host_bytes_in_use);
  return ptr;
}

void VMemAllocator::DeallocateRaw(void* ptr) {
  if (ptr == nullptr) return;
  if (device_->TryDeallocateRaw(ptr)) return;
  bool known = false;
  if (num_live_host_.load(std::memory_order_relaxed) > 0) {
    MutexLock lock(&mu_);
    auto it = host_sizes_.find(ptr);
    if (it != host_sizes_.end()) {
      known = true;
      stats_.host_bytes_in_use -= static_cast<int64_t>(it->second.allocated);
      host_sizes_.erase(it);
      num_live_host_.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  if (known) {
    host_->DeallocateRaw(ptr);
    return;
  }
  {
    MutexLock lock(&mu_);
    ++num_bad_deallocations_;
  }
  LOG(ERROR, "{}: DeallocateRaw({}) of a pointer live neither on the device nor on the "
                "host (double free or foreign pointer); ignored",
                Name(), ptr);
}

std::optional<AllocatorStats> VMemAllocator::GetStats() const { return device_->GetStats(); }

void VMemAllocator::ClearStats() {
  device_->ClearStats();
  MutexLock lock(&mu_);
  stats_.peak_host_bytes_in_use = stats_.host_bytes_in_use;
  stats_.num_host_allocs = 0;
  stats_.num_oom_host_allocs = 0;
  stats_.num_fragment_host_allocs = 0;
  stats_.last_reason = SwapReason::kNone;
}

size_t VMemAllocator::RequestedSize(const void* ptr) const {
  {
    MutexLock lock(&mu_);
    auto it = host_sizes_.find(ptr);
    if (it != host_sizes_.end()) return it->second.requested;
  }
  return device_->RequestedSize(ptr);
}

size_t VMemAllocator::AllocatedSize(const void* ptr) const {
  {
    MutexLock lock(&mu_);
    auto it = host_sizes_.find(ptr);
    if (it != host_sizes_.end()) return it->second.allocated;
  }
  return device_->AllocatedSize(ptr);
}

VMemStats VMemAllocator::GetVMemStats() const {
  MutexLock lock(&mu_);
  return stats_;
}

bool VMemAllocator::IsOnHost(const void* ptr) const {
  MutexLock lock(&mu_);
  return host_sizes_.contains(ptr);
}

int64_t VMemAllocator::num_bad_deallocations() const {
  MutexLock lock(&mu_);
  return num_bad_deallocations_;
}

}  // namespace minitf
