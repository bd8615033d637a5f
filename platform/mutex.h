// Mutex, MutexLock, CondVar and Notification: minitf's locking primitives.
//
//   mutable Mutex mu_;
//   int count_ ABSL_GUARDED_BY(mu_);
//   void Add() { MutexLock lock(&mu_); ++count_; }
//
// They carry Abseil's thread-safety annotations, which clang checks
// (-Wthread-safety), over the C++ standard library's primitives, which
// ThreadSanitizer understands. (absl::Mutex would be the first choice, but
// the Debian Abseil is built without ThreadSanitizer support, so its lock
// operations are invisible to the sanitizer and every guarded access would be
// reported as a race.) This header depends on nothing in minitf, so every
// layer, stream/ and allocator/ included, may use it.
#ifndef MINITF_PLATFORM_MUTEX_H_
#define MINITF_PLATFORM_MUTEX_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace minitf {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) { return mu_.try_lock(); }
  // Tells the analysis the caller holds the lock (not checked at run time).
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` for the scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

class CondVar {
 public:
  // Atomically releases `mu`, waits for a signal (or a spurious wake-up),
  // and re-acquires `mu`.
  void Wait(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }
  // As Wait, giving up after `timeout`; returns true on timeout.
  bool WaitWithTimeout(Mutex* mu, absl::Duration timeout) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool timed_out =
        cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout)) == std::cv_status::timeout;
    lock.release();
    return timed_out;
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

// A one-shot event: Notify once, wait any number of times.
class Notification {
 public:
  void Notify() {
    MutexLock lock(&mu_);
    notified_.store(true, std::memory_order_release);
    cv_.SignalAll();
  }
  bool HasBeenNotified() const { return notified_.load(std::memory_order_acquire); }
  void WaitForNotification() {
    MutexLock lock(&mu_);
    while (!notified_.load(std::memory_order_acquire)) cv_.Wait(&mu_);
  }
  // Returns true if notified before `timeout` passed.
  bool WaitForNotificationWithTimeout(absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    MutexLock lock(&mu_);
    while (!notified_.load(std::memory_order_acquire)) {
      const absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) return false;
      cv_.WaitWithTimeout(&mu_, left);
    }
    return true;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  std::atomic<bool> notified_{false};
};

}  // namespace minitf

#endif  // MINITF_PLATFORM_MUTEX_H_
