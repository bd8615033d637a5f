// Event: a marker recorded on a Stream (Stream::RecordEvent); it completes
// when the stream's work enqueued before the record has finished. Another
// stream can wait for it (Stream::WaitFor(Event*)) without the host blocking.
//
// Created by StreamExecutor::CreateEvent. Thread-safe.
#ifndef MINITF_STREAM_EVENT_H_
#define MINITF_STREAM_EVENT_H_

#include "absl/status/status.h"

namespace minitf::se {

class Event {
 public:
  enum class Status {
    kUnknown,   // Never recorded.
    kPending,   // Recorded; the work before it has not finished.
    kComplete,  // The work before the last record has finished.
    kError,     // The stream it was recorded on failed before reaching it.
  };

  virtual ~Event() = default;

  virtual Status PollForStatus() = 0;
  // Blocks until the event is no longer pending. Ok once complete; the
  // stream's error for kError; FailedPrecondition if never recorded.
  virtual absl::Status WaitForCompletion() = 0;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_EVENT_H_
