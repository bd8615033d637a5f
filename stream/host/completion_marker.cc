#include "stream/host/completion_marker.h"

#include <utility>

namespace minitf::se {

void CompletionMarker::Complete(absl::Status status, absl::Time device_time) {
  MutexLock lock(&mu_);
  if (complete_) return;
  complete_ = true;
  status_ = std::move(status);
  device_time_ = device_time;
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

absl::Time CompletionMarker::device_time() const {
  MutexLock lock(&mu_);
  return device_time_;
}

absl::Status CompletionMarker::Wait() const {
  MutexLock lock(&mu_);
  while (!complete_) completed_cv_.Wait(&mu_);
  return status_;
}

}  // namespace minitf::se
