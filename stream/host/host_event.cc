#include "stream/host/host_event.h"

#include <utility>

namespace minitf::se {

Event::Status HostEvent::PollForStatus() {
  const std::shared_ptr<CompletionMarker> m = marker();
  if (m == nullptr) return Status::kUnknown;
  if (!m->IsComplete()) return Status::kPending;
  return m->status().ok() ? Status::kComplete : Status::kError;
}

absl::Status HostEvent::WaitForCompletion() {
  const std::shared_ptr<CompletionMarker> m = marker();
  if (m == nullptr) return absl::FailedPreconditionError("event was never recorded on a stream");
  return m->Wait();
}

std::shared_ptr<CompletionMarker> HostEvent::marker() const {
  MutexLock lock(&mu_);
  return marker_;
}

void HostEvent::set_marker(std::shared_ptr<CompletionMarker> marker) {
  MutexLock lock(&mu_);
  marker_ = std::move(marker);
}

}  // namespace minitf::se
