// HostEvent: the Event of the Host and SimGPU platforms. Recording it on a
// HostStream points it at a new CompletionMarker in that stream's queue; its
// status is that of the marker of the last record.
//
//   std::unique_ptr<Event> e = *executor->CreateEvent();
//   stream_a->RecordEvent(e.get());
//   stream_b->WaitFor(e.get());          // b's later work waits for a's
//
// Thread-safe.
#ifndef MINITF_STREAM_HOST_HOST_EVENT_H_
#define MINITF_STREAM_HOST_HOST_EVENT_H_

#include <memory>

#include "absl/status/status.h"
#include "platform/mutex.h"
#include "stream/event.h"
#include "stream/host/completion_marker.h"

namespace minitf::se {

class HostEvent : public Event {
 public:
  Status PollForStatus() override;
  absl::Status WaitForCompletion() override;

  // The marker of the last record; nullptr if never recorded.
  std::shared_ptr<CompletionMarker> marker() const;
  // Called by HostStream::RecordEvent.
  void set_marker(std::shared_ptr<CompletionMarker> marker);

 private:
  mutable Mutex mu_;
  std::shared_ptr<CompletionMarker> marker_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_HOST_HOST_EVENT_H_
