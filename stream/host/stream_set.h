// StreamSet: the live streams of one executor, so that
// SynchronizeAllActivity can wait for all of them.
//
//   StreamSet streams;                       // a member of the executor
//   HostStream s(executor, &streams);        // joins for its lifetime
//   streams.SynchronizeAll();
//
// Thread-safe. Does not own the streams.
#ifndef MINITF_STREAM_HOST_STREAM_SET_H_
#define MINITF_STREAM_HOST_STREAM_SET_H_

#include "absl/container/flat_hash_set.h"
#include "platform/mutex.h"

namespace minitf::se {

class HostStream;

class StreamSet {
 public:
  void Add(HostStream* stream);
  void Remove(HostStream* stream);
  // Waits for the work enqueued so far on every member (stream errors are
  // left to the streams to report).
  void SynchronizeAll();

 private:
  Mutex mu_;
  absl::flat_hash_set<HostStream*> streams_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_HOST_STREAM_SET_H_
