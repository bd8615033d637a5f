// Stream: an ordered queue of device work (copies, kernels, callbacks, event
// records and waits). Work on one stream runs in the order it was enqueued;
// work on different streams is ordered only through WaitFor.
//
//   std::unique_ptr<Stream> s = *executor->CreateStream();
//   MINITF_RETURN_IF_ERROR(s->Memcpy(&device_buf, host_src, bytes));      // H2D
//   MINITF_RETURN_IF_ERROR(s->LaunchHostKernel(std::move(kernel)));
//   MINITF_RETURN_IF_ERROR(s->DoHostCallback([done] { done(); }));
//   MINITF_RETURN_IF_ERROR(s->BlockHostUntilDone());
//
// Errors: a failing operation puts the stream into an error state it never
// leaves; work enqueued after that is not run (callbacks still run, so that
// waiters are released) and every later enqueue and BlockHostUntilDone
// returns the error. Enqueue calls return only enqueue-time errors.
//
// Thread-safe: any thread may enqueue. The destructor waits for enqueued
// work. Operations a platform lacks return Unimplemented.
#ifndef MINITF_STREAM_STREAM_H_
#define MINITF_STREAM_STREAM_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "stream/device_memory.h"
#include "stream/kernel.h"

namespace minitf::se {

class Event;
class StreamExecutor;

class Stream {
 public:
  virtual ~Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // The executor that made this stream. Not owned.
  StreamExecutor* parent() const { return parent_; }

  // Host to device, device to host, device to device. `size` bytes.
  virtual absl::Status Memcpy(DeviceMemoryBase* gpu_dst, const void* host_src,
                              uint64_t size) = 0;
  virtual absl::Status Memcpy(void* host_dst, const DeviceMemoryBase& gpu_src,
                              uint64_t size) = 0;
  virtual absl::Status Memcpy(DeviceMemoryBase* gpu_dst, const DeviceMemoryBase& gpu_src,
                              uint64_t size) = 0;
  // Sets `size` bytes (a multiple of 4) to the repeated 32-bit `pattern`.
  virtual absl::Status Memset32(DeviceMemoryBase* location, uint32_t pattern,
                                uint64_t size) = 0;
  absl::Status MemZero(DeviceMemoryBase* location, uint64_t size) {
    return Memset32(location, 0, size);
  }

  // A kernel computed on the host (Host and SimGPU); see kernel.h.
  virtual absl::Status LaunchHostKernel(HostKernel kernel) {
    return absl::UnimplementedError("this platform launches no host kernels");
  }

  // Later work on this stream waits for the work enqueued on `other` so far.
  virtual absl::Status WaitFor(Stream* other) = 0;
  // Later work on this stream waits for `event`'s last record.
  virtual absl::Status WaitFor(Event* event) = 0;
  virtual absl::Status RecordEvent(Event* event) = 0;

  // Runs `callback` on a host thread once the work before it has finished
  // (also when the stream is in error: check status() inside if it matters).
  // The callback must not block on this stream.
  virtual absl::Status DoHostCallback(std::function<void()> callback) = 0;
  // As DoHostCallback; an error the callback returns becomes the stream's.
  virtual absl::Status DoHostCallbackWithStatus(std::function<absl::Status()> callback) = 0;

  // Waits for everything enqueued so far; the stream's error, if any.
  virtual absl::Status BlockHostUntilDone() = 0;

  // Ok, or the error that put the stream into its error state.
  virtual absl::Status status() const = 0;
  bool ok() const { return status().ok(); }

  // Time this stream's kernels held the device's compute engine: SimGPU's
  // engine time, CUDA's kernel intervals between events; zero on Host.
  virtual absl::Duration BusyTime() const { return absl::ZeroDuration(); }

  // The native handle (a cudaStream_t on CUDA); nullptr elsewhere.
  virtual void* platform_specific_handle() const { return nullptr; }

 protected:
  explicit Stream(StreamExecutor* parent) : parent_(parent) {}

 private:
  StreamExecutor* const parent_;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_STREAM_H_
