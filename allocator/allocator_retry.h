// AllocatorRetry: waits for memory to be freed when an allocation fails.
//
// A pooling allocator that is full may succeed a moment later, once another
// thread frees a buffer. AllocateRaw retries the allocation each time a
// deallocation is notified, until it succeeds or `max_wait` has passed; the
// allocator calls NotifyDealloc after every free.
//
//   void* p = retry_.AllocateRaw(
//       [&](size_t a, size_t n, bool verbose) { return TryAllocate(a, n, verbose); },
//       absl::Seconds(10), alignment, num_bytes);
#ifndef MINITF_ALLOCATOR_ALLOCATOR_RETRY_H_
#define MINITF_ALLOCATOR_ALLOCATOR_RETRY_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/time/time.h"
#include "platform/mutex.h"

namespace minitf {

// Thread-safe. NotifyDealloc costs one atomic load when nobody is waiting.
class AllocatorRetry {
 public:
  // Tries an allocation; `verbose_failure` is true on the last try only, so
  // the allocator logs its memory state once.
  using AllocFunc =
      absl::FunctionRef<void*(size_t alignment, size_t num_bytes, bool verbose_failure)>;

  // Calls `alloc` until it returns non-null, retrying after each notified
  // deallocation, and gives up (returning nullptr) after `max_wait`. With a
  // zero `max_wait` it tries exactly once, verbosely.
  void* AllocateRaw(AllocFunc alloc, absl::Duration max_wait, size_t alignment,
                    size_t num_bytes);

  // Wakes the waiting allocations, if any.
  void NotifyDealloc();

  // The number of threads waiting in AllocateRaw (for tests).
  int waiters() const { return waiters_.load(std::memory_order_acquire); }

 private:
  std::atomic<int> waiters_{0};
  Mutex mu_;
  CondVar cv_;
  // Bumped by each NotifyDealloc that found waiters; a waiter that saw the
  // same value before its failed attempt knows no free happened since.
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace minitf

#endif  // MINITF_ALLOCATOR_ALLOCATOR_RETRY_H_
