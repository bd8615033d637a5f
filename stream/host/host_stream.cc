#include "stream/host/host_stream.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "platform/logging.h"
#include "stream/device_memory_protection.h"
#include "stream/host/host_event.h"
#include "stream/host/sleep_until.h"
#include "stream/host/stream_set.h"
#include "stream/platform.h"
#include "stream/stream_executor.h"

namespace minitf::se {
namespace {

std::string StreamName(StreamExecutor* parent) {
  static std::atomic<int64_t> next_id{0};
  const int64_t id = next_id.fetch_add(1, std::memory_order_relaxed);
  if (parent == nullptr) return absl::StrCat("stream", id);
  return absl::StrCat(parent->platform()->Name(), ":", parent->device_ordinal(), "/stream", id);
}

// The stream whose worker this thread is, if any.
thread_local const HostStream* worker_of_this_thread = nullptr;

}  // namespace

HostStream::HostStream(StreamExecutor* parent, StreamSet* streams)
    : Stream(parent), streams_(streams), name_(StreamName(parent)) {
  worker_ = std::thread([this] { WorkLoop(); });
  if (streams_ != nullptr) streams_->Add(this);
}

HostStream::~HostStream() {
  if (streams_ != nullptr) streams_->Remove(this);
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    work_cv_.Signal();
  }
  worker_.join();
}

void HostStream::WorkLoop() {
  worker_of_this_thread = this;
  while (true) {
    WorkItem item;
    bool run = false;
    {
      MutexLock lock(&mu_);
      while (queue_.empty() && !stopping_) work_cv_.Wait(&mu_);
      if (queue_.empty()) return;  // Stopping, and drained.
      item = std::move(queue_.front());
      queue_.pop_front();
      run = status_.ok() || item.run_in_error;
    }
    if (run) {
      std::optional<ScopedDeviceMemoryAccess> access;
      if (item.device_access) access.emplace();
      clock_set_by_item_ = false;
      absl::Status status = item.run();
      if (!clock_set_by_item_) previous_done_ = absl::Now();
      access.reset();
      if (!status.ok()) {
        MutexLock lock(&mu_);
        if (status_.ok()) {
          LOG(WARNING, "{} enters its error state: {}", name_, status.ToString());
          status_ = std::move(status);
        }
      }
    }
    item = WorkItem();  // Releases what the closure captured before waiters wake.
    MutexLock lock(&mu_);
    ++completed_;
    done_cv_.SignalAll();
  }
}

absl::Status HostStream::Enqueue(std::function<absl::Status()> run, bool run_in_error,
                                 bool device_access) {
  MutexLock lock(&mu_);
  if (!status_.ok()) return status_;
  if (stopping_) return absl::FailedPreconditionError(absl::StrCat(name_, " is being destroyed"));
  queue_.push_back(WorkItem{std::move(run), run_in_error, device_access});
  ++enqueued_;
  work_cv_.Signal();
  return absl::OkStatus();
}

absl::Status HostStream::EnqueueTransfer(TransferKind kind, void* dst, const void* src,
                                         uint64_t size) {
  const absl::Duration modeled = ModeledTransferTime(kind, size);
  const bool moves_bytes = MovesBytes(size);
  const absl::Time launched = absl::Now();
  return Enqueue([this, dst, src, size, modeled, moves_bytes, launched] {
    if (size > 0 && moves_bytes) {
      std::memmove(DeviceAddressForThisThread(dst), DeviceAddressForThisThread(src), size);
    }
    if (modeled > absl::ZeroDuration()) {
      // On the device's clock the copy begins when the stream's work before
      // it ended (or at its launch) and takes its modeled time.
      const absl::Time end = std::max(launched, previous_done_) + modeled;
      SleepUntil(end);
      previous_done_ = end;
      clock_set_by_item_ = true;
    }
    return absl::OkStatus();
  }, /*run_in_error=*/false, /*device_access=*/true);
}

absl::Status HostStream::Memcpy(DeviceMemoryBase* gpu_dst, const void* host_src, uint64_t size) {
  if (gpu_dst == nullptr || (size > 0 && (gpu_dst->is_null() || host_src == nullptr))) {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": host-to-device copy of ", size,
                                                   " bytes with a null source or destination"));
  }
  if (size > gpu_dst->size()) {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": host-to-device copy of ", size,
                                                   " bytes into a ", gpu_dst->size(),
                                                   "-byte device buffer"));
  }
  return EnqueueTransfer(TransferKind::kHostToDevice, gpu_dst->opaque(), host_src, size);
}

absl::Status HostStream::Memcpy(void* host_dst, const DeviceMemoryBase& gpu_src, uint64_t size) {
  if (size > 0 && (host_dst == nullptr || gpu_src.is_null())) {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": device-to-host copy of ", size,
                                                   " bytes with a null source or destination"));
  }
  if (size > gpu_src.size()) {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": device-to-host copy of ", size,
                                                   " bytes from a ", gpu_src.size(),
                                                   "-byte device buffer"));
  }
  return EnqueueTransfer(TransferKind::kDeviceToHost, host_dst, gpu_src.opaque(), size);
}

absl::Status HostStream::Memcpy(DeviceMemoryBase* gpu_dst, const DeviceMemoryBase& gpu_src,
                                uint64_t size) {
  if (gpu_dst == nullptr || (size > 0 && (gpu_dst->is_null() || gpu_src.is_null()))) {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": device-to-device copy of ", size,
                                                   " bytes with a null source or destination"));
  }
  if (size > gpu_dst->size() || size > gpu_src.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name_, ": device-to-device copy of ", size, " bytes from a ", gpu_src.size(),
        "-byte buffer into a ", gpu_dst->size(), "-byte buffer"));
  }
  return EnqueueTransfer(TransferKind::kDeviceToDevice, gpu_dst->opaque(), gpu_src.opaque(),
                         size);
}

absl::Status HostStream::Memset32(DeviceMemoryBase* location, uint32_t pattern, uint64_t size) {
  if (location == nullptr || (size > 0 && location->is_null())) {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": memset of ", size,
                                                   " bytes of a null buffer"));
  }
  if (size % 4 != 0 || size > location->size()) {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": memset32 of ", size,
                                                   " bytes (want a multiple of 4, at most the ",
                                                   location->size(), "-byte buffer)"));
  }
  const absl::Duration modeled = ModeledTransferTime(TransferKind::kMemset, size);
  void* const dst = location->opaque();
  return Enqueue([dst, pattern, size, modeled] {
    const absl::Time start = absl::Now();
    auto* words = static_cast<unsigned char*>(DeviceAddressForThisThread(dst));
    for (uint64_t i = 0; i < size; i += 4) std::memcpy(words + i, &pattern, 4);
    if (modeled > absl::ZeroDuration()) SleepUntil(start + modeled);
    return absl::OkStatus();
  }, /*run_in_error=*/false, /*device_access=*/true);
}

absl::Status HostStream::EnqueueKernel(std::string kernel_name, KernelWork work) {
  const absl::Time launched = absl::Now();
  return Enqueue([this, kernel_name = std::move(kernel_name), work = std::move(work), launched] {
    absl::Duration busy = absl::ZeroDuration();
    KernelClock clock{.ready = std::max(launched, previous_done_)};
    absl::Status status = work(&clock, &busy);
    if (clock.done != absl::InfinitePast()) {
      previous_done_ = clock.done;
      clock_set_by_item_ = true;
    }
    {
      MutexLock lock(&mu_);
      busy_ += busy;
    }
    if (status.ok()) return status;
    return absl::Status(status.code(), absl::StrCat(name_, ": kernel ", kernel_name,
                                                    " failed: ", status.message()));
  }, /*run_in_error=*/false, /*device_access=*/true);
}

absl::Status HostStream::LaunchHostKernel(HostKernel kernel) {
  if (!kernel.body) {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, ": kernel ", kernel.name, " has no body"));
  }
  std::string name = kernel.name;
  return EnqueueKernel(std::move(name),
                       [body = std::move(kernel.body)](KernelClock*, absl::Duration*) {
                         return body();
                       });
}

std::shared_ptr<CompletionMarker> HostStream::EnqueueMarker() {
  std::shared_ptr<CompletionMarker> marker;
  EnqueueMarker(&marker).IgnoreError();  // An error is in the marker too.
  return marker;
}

absl::Status HostStream::EnqueueMarker(std::shared_ptr<CompletionMarker>* marker) {
  *marker = std::make_shared<CompletionMarker>();
  absl::Status enqueued = Enqueue(
      [this, marker = *marker] {
        marker->Complete(CurrentStatus(), previous_done_);
        clock_set_by_item_ = true;  // A marker takes no device time.
        return absl::OkStatus();
      },
      /*run_in_error=*/true);
  if (!enqueued.ok()) (*marker)->Complete(enqueued);
  return enqueued;
}

absl::Status HostStream::WaitFor(Stream* other) {
  if (other == this) return absl::OkStatus();
  auto* host_other = dynamic_cast<HostStream*>(other);
  if (host_other == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        name_, " cannot wait for a stream that is not a Host or SimGPU stream"));
  }
  std::shared_ptr<CompletionMarker> marker = host_other->EnqueueMarker();
  std::string what = absl::StrCat("stream ", host_other->name());
  return Enqueue([this, marker = std::move(marker), what = std::move(what)]() -> absl::Status {
    absl::Status status = marker->Wait();
    AdvanceClockTo(marker->device_time());
    if (status.ok()) return status;
    return absl::Status(status.code(), absl::StrCat(name_, " waited for ", what,
                                                    ", which failed: ", status.message()));
  });
}

absl::Status HostStream::WaitFor(Event* event) {
  auto* host_event = dynamic_cast<HostEvent*>(event);
  if (host_event == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        name_, " cannot wait for an event not made by a Host or SimGPU executor"));
  }
  std::shared_ptr<CompletionMarker> marker = host_event->marker();
  if (marker == nullptr) return absl::OkStatus();  // Never recorded: nothing to wait for.
  return Enqueue([this, marker = std::move(marker)]() -> absl::Status {
    absl::Status status = marker->Wait();
    AdvanceClockTo(marker->device_time());
    if (status.ok()) return status;
    return absl::Status(status.code(), absl::StrCat(name_, " waited for an event whose stream "
                                                    "failed: ", status.message()));
  });
}

absl::Status HostStream::RecordEvent(Event* event) {
  auto* host_event = dynamic_cast<HostEvent*>(event);
  if (host_event == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        name_, " cannot record an event not made by a Host or SimGPU executor"));
  }
  std::shared_ptr<CompletionMarker> marker;
  // When the stream is in error the marker is not enqueued but complete with
  // the error, and the event now says so.
  absl::Status enqueued = EnqueueMarker(&marker);
  host_event->set_marker(std::move(marker));
  return enqueued;
}

absl::Status HostStream::DoHostCallback(std::function<void()> callback) {
  return Enqueue(
      [callback = std::move(callback)] {
        callback();
        return absl::OkStatus();
      },
      /*run_in_error=*/true);
}

absl::Status HostStream::DoHostCallbackWithStatus(std::function<absl::Status()> callback) {
  return Enqueue(std::move(callback), /*run_in_error=*/true);
}

absl::Status HostStream::BlockHostUntilDone() {
  MutexLock lock(&mu_);
  // On the worker itself (a callback waiting for its own stream), everything
  // enqueued before the running item is done: waiting for more would never end.
  if (worker_of_this_thread == this) return status_;
  const uint64_t target = enqueued_;
  while (completed_ < target) done_cv_.Wait(&mu_);
  return status_;
}

absl::Status HostStream::status() const { return CurrentStatus(); }

void HostStream::AdvanceClockTo(absl::Time device_time) {
  // The wait ended when the other stream's work did, on the device's clock,
  // or, without a clock there, when the waiting worker saw it.
  previous_done_ =
      device_time == absl::InfinitePast() ? absl::Now() : std::max(previous_done_, device_time);
  clock_set_by_item_ = true;
}

int64_t HostStream::PendingItems() const {
  MutexLock lock(&mu_);
  return static_cast<int64_t>(enqueued_ - completed_);
}

absl::Status HostStream::CurrentStatus() const {
  MutexLock lock(&mu_);
  return status_;
}

absl::Duration HostStream::BusyTime() const {
  MutexLock lock(&mu_);
  return busy_;
}

}  // namespace minitf::se
