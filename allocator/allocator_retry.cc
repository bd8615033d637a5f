#include "allocator/allocator_retry.h"

#include "absl/time/clock.h"

namespace minitf {

void* AllocatorRetry::AllocateRaw(AllocFunc alloc, absl::Duration max_wait, size_t alignment,
                                  size_t num_bytes) {
  if (max_wait <= absl::ZeroDuration()) return alloc(alignment, num_bytes, true);
  void* ptr = alloc(alignment, num_bytes, false);
  if (ptr != nullptr) return ptr;

  const absl::Time deadline = absl::Now() + max_wait;
  // Registering first means a free that happens after this point either sees
  // the waiter and bumps the generation, or happened before the next attempt
  // and is visible to it.
  waiters_.fetch_add(1, std::memory_order_seq_cst);
  while (true) {
    uint64_t seen;
    {
      MutexLock lock(&mu_);
      seen = generation_;
    }
    ptr = alloc(alignment, num_bytes, false);
    if (ptr != nullptr) break;
    MutexLock lock(&mu_);
    bool expired = false;
    while (generation_ == seen && !expired) {
      const absl::Duration left = deadline - absl::Now();
      expired = left <= absl::ZeroDuration() || cv_.WaitWithTimeout(&mu_, left);
    }
    if (expired) break;
  }
  waiters_.fetch_sub(1, std::memory_order_seq_cst);
  if (ptr == nullptr) ptr = alloc(alignment, num_bytes, true);  // last try, logged
  return ptr;
}

void AllocatorRetry::NotifyDealloc() {
  if (waiters_.load(std::memory_order_seq_cst) == 0) return;
  MutexLock lock(&mu_);
  ++generation_;
  cv_.SignalAll();
}

}  // namespace minitf
