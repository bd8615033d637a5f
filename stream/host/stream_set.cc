#include "stream/host/stream_set.h"

#include <memory>
#include <vector>

#include "stream/host/completion_marker.h"
#include "stream/host/host_stream.h"

namespace minitf::se {

void StreamSet::Add(HostStream* stream) {
  MutexLock lock(&mu_);
  streams_.insert(stream);
}

void StreamSet::Remove(HostStream* stream) {
  MutexLock lock(&mu_);
  streams_.erase(stream);
}

void StreamSet::SynchronizeAll() {
  std::vector<std::shared_ptr<CompletionMarker>> markers;
  {
    // Enqueue under the lock (a stream cannot leave meanwhile), wait outside
    // it (markers outlive their streams, whose destructors drain).
    MutexLock lock(&mu_);
    markers.reserve(streams_.size());
    for (HostStream* stream : streams_) markers.push_back(stream->EnqueueMarker());
  }
  for (const auto& marker : markers) marker->Wait().IgnoreError();
}

}  // namespace minitf::se
