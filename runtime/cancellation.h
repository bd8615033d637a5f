// CancellationManager: lets a step tell its outstanding asynchronous work to
// stop. Work registers a callback under a token; StartCancel runs every
// registered callback once, and a registration after cancellation fails so
// the caller knows to stop at once.
//
//   CancellationToken token = cm->get_cancellation_token();
//   if (!cm->RegisterCallback(token, [&] { waiter.Wake(); })) return Cancelled();
//   ...
//   cm->DeregisterCallback(token);
//
// Thread-safe. DeregisterCallback waits for a callback that is running.
#ifndef MINITF_RUNTIME_CANCELLATION_H_
#define MINITF_RUNTIME_CANCELLATION_H_

#include <atomic>
#include <cstdint>
#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "platform/mutex.h"

namespace minitf {

using CancellationToken = int64_t;
using CancelCallback = std::function<void()>;

class CancellationManager {
 public:
  CancellationManager() = default;
  CancellationManager(const CancellationManager&) = delete;
  CancellationManager& operator=(const CancellationManager&) = delete;

  // Runs every registered callback (once) on this thread; later calls do nothing.
  void StartCancel();
  // Inline: the executor asks it before every node.
  bool IsCancelled() const { return cancel_started_.load(std::memory_order_acquire); }

  CancellationToken get_cancellation_token();
  // False (and nothing registered) when cancellation has already started.
  bool RegisterCallback(CancellationToken token, CancelCallback callback);
  // True when the callback was removed before it ran; false when cancellation
  // ran it (this call then waits until it has finished).
  bool DeregisterCallback(CancellationToken token);

 private:
  // Set once StartCancel begins: IsCancelled, asked once per node by the
  // executor, reads it without the lock.
  std::atomic<bool> cancel_started_{false};
  mutable Mutex mu_;
  bool is_cancelling_ ABSL_GUARDED_BY(mu_) = false;
  bool is_cancelled_ ABSL_GUARDED_BY(mu_) = false;
  CancellationToken next_token_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<CancellationToken, CancelCallback> callbacks_ ABSL_GUARDED_BY(mu_);
  Notification cancelled_notification_;
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_CANCELLATION_H_
