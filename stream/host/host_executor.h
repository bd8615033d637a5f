// HostExecutor: the StreamExecutor of the Host platform's one device, the
// CPU. Device memory is 64-byte-aligned host memory; streams are HostStreams
// (one FIFO worker thread each); events are HostEvents. No BLAS or DNN plugin.
//
//   HostPlatform host;
//   StreamExecutor* cpu = *host.ExecutorForDevice(0);
//   DeviceMemoryBase buf = cpu->Allocate(1024);
//
// Thread-safe. Owned by its HostPlatform; streams and events it makes must be
// destroyed before it.
#ifndef MINITF_STREAM_HOST_HOST_EXECUTOR_H_
#define MINITF_STREAM_HOST_HOST_EXECUTOR_H_

#include <cstdint>
#include <memory>

#include "absl/container/btree_map.h"
#include "platform/mutex.h"
#include "stream/host/stream_set.h"
#include "stream/stream_executor.h"

namespace minitf::se {

class HostExecutor : public StreamExecutor {
 public:
  static constexpr uint64_t kAlignment = kDeviceMemoryAlignment;

  // `platform` is not owned and outlives the executor.
  explicit HostExecutor(Platform* platform);
  ~HostExecutor() override;

  Platform* platform() const override { return platform_; }
  int device_ordinal() const override { return 0; }
  const DeviceDescription& GetDeviceDescription() const override { return description_; }

  DeviceMemoryBase Allocate(uint64_t size) override;
  void Deallocate(DeviceMemoryBase* mem) override;
  int64_t DeviceMemoryInUse() const override;
  bool IsDeviceMemory(const void* ptr) const override;

  void* HostMemoryAllocate(uint64_t size) override;
  void HostMemoryDeallocate(void* ptr, uint64_t size) override;

  absl::Status SynchronousMemcpyH2D(const void* host_src, uint64_t size,
                                    DeviceMemoryBase* gpu_dst) override;
  absl::Status SynchronousMemcpyD2H(const DeviceMemoryBase& gpu_src, uint64_t size,
                                    void* host_dst) override;
  absl::Status SynchronousMemcpyD2D(const DeviceMemoryBase& gpu_src, uint64_t size,
                                    DeviceMemoryBase* gpu_dst) override;

  absl::StatusOr<std::unique_ptr<Stream>> CreateStream() override;
  absl::StatusOr<std::unique_ptr<Event>> CreateEvent() override;
  absl::Status SynchronizeAllActivity() override;

 private:
  // Constant after construction.
  Platform* const platform_;
  const DeviceDescription description_;

  StreamSet streams_;

  mutable Mutex mu_;
  // Live allocations: address -> requested size.
  absl::btree_map<uintptr_t, uint64_t> allocations_ ABSL_GUARDED_BY(mu_);
  int64_t bytes_in_use_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_HOST_HOST_EXECUTOR_H_
