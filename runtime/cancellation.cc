#include "runtime/cancellation.h"

#include <vector>

namespace minitf {

void CancellationManager::StartCancel() {
  absl::flat_hash_map<CancellationToken, CancelCallback> callbacks;
  {
    MutexLock lock(&mu_);
    if (is_cancelled_ || is_cancelling_) return;
    is_cancelling_ = true;
    cancel_started_.store(true, std::memory_order_release);
    callbacks.swap(callbacks_);
  }
  for (auto& [token, callback] : callbacks) callback();
  {
    MutexLock lock(&mu_);
    is_cancelling_ = false;
    is_cancelled_ = true;
  }
  cancelled_notification_.Notify();
}

CancellationToken CancellationManager::get_cancellation_token() {
  MutexLock lock(&mu_);
  return next_token_++;
}

bool CancellationManager::RegisterCallback(CancellationToken token, CancelCallback callback) {
  MutexLock lock(&mu_);
  if (is_cancelled_ || is_cancelling_) return false;
  callbacks_.emplace(token, std::move(callback));
  return true;
}

bool CancellationManager::DeregisterCallback(CancellationToken token) {
  {
    MutexLock lock(&mu_);
    if (!is_cancelled_ && !is_cancelling_) {
      callbacks_.erase(token);
      return true;
    }
    if (is_cancelled_) return false;
  }
  // Cancellation is running the callbacks, perhaps this one: wait for it.
  cancelled_notification_.WaitForNotification();
  return false;
}

}  // namespace minitf
