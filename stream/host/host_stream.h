// HostStream: a Stream executed by one FIFO worker thread (TensorFlow's
// HostStream). Every operation becomes a closure in the queue; the worker
// runs them one at a time in enqueue order. The Host platform's streams are
// HostStreams; SimGPU's derive from it to route kernels through the device's
// compute engine and to model copy times.
//
//   HostStream s(executor, &live_streams);
//   s.Memcpy(&dst, host_src, bytes);
//   s.DoHostCallback([] { ... });
//   absl::Status st = s.BlockHostUntilDone();
//
// Error state (stream.h): the first work item that fails stores its error in
// the stream. Queued items reached afterwards are skipped, except host
// callbacks and markers (event records, the other half of WaitFor(Stream*)),
// which still run so that waiters are released. An enqueue call made while
// the stream is in error enqueues nothing and returns the error. A stream
// that waits (WaitFor) for an event or stream whose work failed enters the
// error state itself when it reaches the wait.
//
// Cross-stream ordering works between any two HostStreams (Host and SimGPU
// streams may wait for each other). Callbacks run on the worker thread and
// must not block on their own stream.
//
// Thread-safe: any thread may enqueue. The destructor waits for the queued
// work and joins the worker; queued closures therefore never make virtual
// calls on the stream (a subclass's part is gone by the time they drain). REQUIRES: the executor and its StreamSet
// outlive the stream.
#ifndef MINITF_STREAM_HOST_HOST_STREAM_H_
#define MINITF_STREAM_HOST_HOST_STREAM_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "platform/mutex.h"
#include "stream/host/completion_marker.h"
#include "stream/stream.h"

namespace minitf::se {

class StreamSet;

class HostStream : public Stream {
 public:
  // Joins `streams` (the executor's live streams; not owned) for its lifetime
  // and starts the worker thread.
  HostStream(StreamExecutor* parent, StreamSet* streams);
  ~HostStream() override;

  absl::Status Memcpy(DeviceMemoryBase* gpu_dst, const void* host_src, uint64_t size) override;
  absl::Status Memcpy(void* host_dst, const DeviceMemoryBase& gpu_src, uint64_t size) override;
  absl::Status Memcpy(DeviceMemoryBase* gpu_dst, const DeviceMemoryBase& gpu_src,
                      uint64_t size) override;
  absl::Status Memset32(DeviceMemoryBase* location, uint32_t pattern, uint64_t size) override;
  // Runs the body on the worker thread (no cost model).
  absl::Status LaunchHostKernel(HostKernel kernel) override;

  absl::Status WaitFor(Stream* other) override;
  absl::Status WaitFor(Event* event) override;
  absl::Status RecordEvent(Event* event) override;
  absl::Status DoHostCallback(std::function<void()> callback) override;
  absl::Status DoHostCallbackWithStatus(std::function<absl::Status()> callback) override;
  // Called from a host callback on this stream's own worker, returns at once
  // (the work enqueued before the callback is done) instead of waiting for
  // itself.
  absl::Status BlockHostUntilDone() override;
  absl::Status status() const override;
  absl::Duration BusyTime() const override;

  // Enqueues a marker that completes, with the stream's status, when the work
  // enqueued before it has finished. If the stream is already in error the
  // marker is returned complete, with the error.
  std::shared_ptr<CompletionMarker> EnqueueMarker();

  // Work items enqueued and not yet finished (the one running included).
  int64_t PendingItems() const;

  // "SimGPU:0/stream3": names the stream in errors and logs.
  const std::string& name() const { return name_; }

 protected:
  enum class TransferKind { kHostToDevice, kDeviceToHost, kDeviceToDevice, kMemset };

  // The modeled duration of a transfer of `bytes`: the worker is held until
  // that much time has passed since the transfer started. Called on the
  // enqueuing thread. The Host platform models none (zero).
  virtual absl::Duration ModeledTransferTime(TransferKind kind, uint64_t bytes) const {
    return absl::ZeroDuration();
  }

  // Whether a copy of `bytes` moves them (every copy, unless a platform
  // models only the time: SimGPU's timing mode). Called on the enqueuing
  // thread.
  virtual bool MovesBytes(uint64_t bytes) const { return true; }

  // When a kernel could start and when it ended, on the device's clock: a
  // platform that models time may end a kernel before the worker returns
  // from it (SimGPU), and the stream's next kernel is ready from then.
  struct KernelClock {
    // The later of the kernel's launch and the end of the stream's previous
    // work (a kernel's modeled end, else when the worker finished it).
    absl::Time ready;
    // Set by the work to its end on the device's clock; left InfinitePast,
    // the end is when the work returned.
    absl::Time done = absl::InfinitePast();
  };
  // Work a kernel does on the worker thread: returns the kernel's status and
  // sets `*busy` to the compute-engine time to charge to this stream.
  using KernelWork = std::function<absl::Status(KernelClock* clock, absl::Duration* busy)>;
  // Enqueues kernel work; its error, prefixed with the stream and kernel
  // names, becomes the stream's.
  absl::Status EnqueueKernel(std::string kernel_name, KernelWork work);

 private:
  struct WorkItem {
    std::function<absl::Status()> run;
    // Runs even when the stream is in error (callbacks and markers).
    bool run_in_error = false;
    // Runs with access to device memory (device_memory_protection.h):
    // kernels, copies and memsets; never host callbacks.
    bool device_access = false;
  };

  // Nothing is enqueued when the stream is in error (the error is returned).
  absl::Status Enqueue(std::function<absl::Status()> run, bool run_in_error = false,
                       bool device_access = false);
  // Sets `*marker` to a new marker, enqueued, or when the stream is in error
  // complete with the error, which is returned.
  absl::Status EnqueueMarker(std::shared_ptr<CompletionMarker>* marker);
  // status(), without virtual dispatch: closures run by the worker may call
  // it while a derived class's destructor is draining the queue.
  absl::Status CurrentStatus() const;
  absl::Status EnqueueTransfer(TransferKind kind, void* dst, const void* src, uint64_t size);
  // On the worker, after a wait for another stream's marker: this stream's
  // device clock moves to when the other's work ended there.
  void AdvanceClockTo(absl::Time device_time);
  void WorkLoop();

  // Constant after construction.
  StreamSet* const streams_;
  const std::string name_;

  // Touched by the worker thread only: when the previous item ended on the
  // device's clock (KernelClock), and whether the running item set it.
  absl::Time previous_done_ = absl::InfinitePast();
  bool clock_set_by_item_ = false;

  mutable Mutex mu_;
  CondVar work_cv_;  // Signalled when queue_ grows or stopping_ is set.
  CondVar done_cv_;  // Signalled when completed_ grows.
  std::deque<WorkItem> queue_ ABSL_GUARDED_BY(mu_);
  // Items enqueued and finished (run or skipped) since construction; the
  // queue is FIFO, so item i has finished iff completed_ > i.
  uint64_t enqueued_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t completed_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  absl::Duration busy_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;

  // Last: started when everything above is initialised.
  std::thread worker_;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_HOST_HOST_STREAM_H_
