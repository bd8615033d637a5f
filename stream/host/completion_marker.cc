#include "stream/host/completion_marker.h"

#include <utility>

namespace minitf::se {

void CompletionMarker::Complete(absl::Status status) {
  MutexLock lock(&mu_);
  if (complete_) return;
  complete_ = true;
  status_ = std::move(status);
  completed_cv_.SignalAll();
}

bool CompletionMarker::IsComplete() const {
  MutexLock lock(&mu_);
  return complete_;
}

absl::Status CompletionMarker::status() const {
  MutexLock lock(&mu_);
  return status_;
}

absl::Status CompletionMarker::Wait() const {
  MutexLock lock(&mu_);
  while (!complete_) completed_cv_.Wait(&mu_);
  return status_;
}

}  // namespace minitf::se
