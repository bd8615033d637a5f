// StreamExecutor: one device of a platform. It allocates device memory and
// pinned host memory, copies synchronously, describes the device, and makes
// the streams and events through which all asynchronous work is ordered. The
// BLAS and DNN plugins are reached through AsBlas / AsDnn.
//
//   StreamExecutor* gpu = *platform->ExecutorForDevice(0);
//   DeviceMemoryBase buf = gpu->Allocate(bytes);        // null when full
//   MINITF_RETURN_IF_ERROR(gpu->SynchronousMemcpyH2D(host, bytes, &buf));
//   gpu->Deallocate(&buf);
//
// Owned by its Platform; lives as long as the process. Thread-safe.
#ifndef MINITF_STREAM_STREAM_EXECUTOR_H_
#define MINITF_STREAM_STREAM_EXECUTOR_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "stream/device_description.h"
#include "stream/device_memory.h"
#include "stream/stream_priority.h"

namespace minitf::se {

class BlasSupport;
class DnnSupport;
class Event;
class Platform;
class SmPartition;
class Stream;

// What every StreamExecutor guarantees of its pointers: device memory is
// aligned to kDeviceMemoryAlignment, pinned host memory to a page.
inline constexpr uint64_t kDeviceMemoryAlignment = 256;
inline constexpr uint64_t kPinnedHostAlignment = 4096;

class StreamExecutor {
 public:
  virtual ~StreamExecutor() = default;

  virtual Platform* platform() const = 0;
  virtual int device_ordinal() const = 0;
  virtual const DeviceDescription& GetDeviceDescription() const = 0;

  // `size` bytes of device memory aligned to kDeviceMemoryAlignment, or a
  // null handle when the device cannot give them (capacity reached). Never
  // aborts.
  virtual DeviceMemoryBase Allocate(uint64_t size) = 0;
  // REQUIRES: `mem` came from Allocate and is not in use by queued work.
  // Sets `*mem` to null.
  virtual void Deallocate(DeviceMemoryBase* mem) = 0;
  // Bytes of device memory allocated now (all users of the device together).
  virtual int64_t DeviceMemoryInUse() const = 0;
  // Whether `ptr` lies in this device's memory.
  virtual bool IsDeviceMemory(const void* ptr) const = 0;

  // Page-locked host memory the device can copy from directly, aligned to
  // kPinnedHostAlignment; nullptr when it cannot be had.
  virtual void* HostMemoryAllocate(uint64_t size) = 0;
  virtual void HostMemoryDeallocate(void* ptr, uint64_t size) = 0;

  virtual absl::Status SynchronousMemcpyH2D(const void* host_src, uint64_t size,
                                            DeviceMemoryBase* gpu_dst) = 0;
  virtual absl::Status SynchronousMemcpyD2H(const DeviceMemoryBase& gpu_src, uint64_t size,
                                            void* host_dst) = 0;
  virtual absl::Status SynchronousMemcpyD2D(const DeviceMemoryBase& gpu_src, uint64_t size,
                                            DeviceMemoryBase* gpu_dst) = 0;

  // The caller owns what these return.
  virtual absl::StatusOr<std::unique_ptr<Stream>> CreateStream() = 0;
  // A stream whose kernels the device serves before those of lower-priority
  // streams (stream_priority.h). Platforms without a shared compute engine
  // (Host) have one priority only: this is CreateStream there.
  virtual absl::StatusOr<std::unique_ptr<Stream>> CreateStreamWithPriority(
      StreamPriority priority);
  // A stream of `priority` whose kernels run on `partition`'s share of the
  // SMs (sm_partition.h; CUDA's green contexts). Unimplemented where the
  // platform cannot limit a stream's SMs (every platform but SimGPU's
  // timing mode today).
  virtual absl::StatusOr<std::unique_ptr<Stream>> CreateStreamInPartition(
      StreamPriority priority, std::shared_ptr<SmPartition> partition);
  virtual absl::StatusOr<std::unique_ptr<Event>> CreateEvent() = 0;

  // Waits for all work on all of this device's streams.
  virtual absl::Status SynchronizeAllActivity() = 0;

  // Total time the device's compute engine was busy since the executor was
  // created (SimGPU; zero where the platform does not measure it). Divided
  // by wall time, this is the device's utilisation.
  virtual absl::Duration DeviceBusyTime() const { return absl::ZeroDuration(); }

  // The plugins; nullptr when the platform has none. Owned by the executor.
  virtual BlasSupport* AsBlas() { return nullptr; }
  virtual DnnSupport* AsDnn() { return nullptr; }
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_STREAM_EXECUTOR_H_
