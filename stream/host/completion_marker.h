// CompletionMarker: a point in a HostStream's queue that completes, with the
// stream's status, when the work enqueued before it has finished. Events,
// cross-stream waits and SynchronizeAllActivity are built on markers.
//
//   std::shared_ptr<CompletionMarker> m = stream->EnqueueMarker();
//   absl::Status s = m->Wait();   // the stream's status when m was reached
//
// Shared (std::shared_ptr) between the stream that completes it and every
// event or waiting stream that refers to it, so it outlives whichever of them
// goes first. Thread-safe.
#ifndef MINITF_STREAM_HOST_COMPLETION_MARKER_H_
#define MINITF_STREAM_HOST_COMPLETION_MARKER_H_

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "platform/mutex.h"

namespace minitf::se {

class CompletionMarker {
 public:
  // Completes the marker; later calls are ignored. `device_time`: when the
  // work before it ended on the device's clock (HostStream's KernelClock),
  // InfinitePast when unknown.
  void Complete(absl::Status status, absl::Time device_time = absl::InfinitePast());
  bool IsComplete() const;
  // REQUIRES: IsComplete(). Ok, or the error of the stream that reached it.
  absl::Status status() const;
  // Blocks until complete; the completion status.
  absl::Status Wait() const;
  // REQUIRES: IsComplete(). The device time it was completed with.
  absl::Time device_time() const;

 private:
  mutable Mutex mu_;
  mutable CondVar completed_cv_;
  bool complete_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  absl::Time device_time_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_HOST_COMPLETION_MARKER_H_
