// CudaExecutor: the StreamExecutor of one CUDA device. Device memory comes
// from cudaMalloc, pinned host memory from cudaHostAlloc; synchronous copies
// run on the calling thread's per-thread default stream and wait for it.
// The cuBLAS and cuDNN plugins are created with the executor and make their
// library handles on first use.
//
//   Platform* cuda = *PlatformManager::PlatformWithName("CUDA");
//   StreamExecutor* gpu = *cuda->ExecutorForDevice(0);
//   DeviceMemoryBase buf = gpu->Allocate(bytes);   // null when the GPU is full
//
// Every call makes this device the calling thread's current CUDA device.
// Owned by CudaPlatform. Thread-safe.
#ifndef MINITF_STREAM_CUDA_CUDA_EXECUTOR_H_
#define MINITF_STREAM_CUDA_CUDA_EXECUTOR_H_

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "stream/device_description.h"
#include "stream/stream_executor.h"

namespace minitf::se::cuda {

class CudaBlas;
class CudaDnn;

class CudaExecutor : public StreamExecutor {
 public:
  // Reads the device's properties. `platform` is not owned and outlives the
  // executor.
  static absl::StatusOr<std::unique_ptr<CudaExecutor>> Create(Platform* platform, int ordinal);
  ~CudaExecutor() override;

  Platform* platform() const override { return platform_; }
  int device_ordinal() const override { return ordinal_; }
  const DeviceDescription& GetDeviceDescription() const override { return description_; }

  DeviceMemoryBase Allocate(uint64_t size) override;
  void Deallocate(DeviceMemoryBase* mem) override;
  int64_t DeviceMemoryInUse() const override {
    return memory_in_use_.load(std::memory_order_relaxed);
  }
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
  absl::StatusOr<std::unique_ptr<Stream>> CreateStreamWithPriority(
      StreamPriority priority) override;
  absl::StatusOr<std::unique_ptr<Event>> CreateEvent() override;
  absl::Status SynchronizeAllActivity() override;

  BlasSupport* AsBlas() override;
  DnnSupport* AsDnn() override;

  // Makes this device the calling thread's current CUDA device.
  absl::Status Activate() const;

  // Scratch memory for the plugins (cuDNN workspaces, relaid-out operands),
  // ordered on `stream`: usable by work enqueued there after the call, and
  // returned by DeallocateScratch once the work enqueued before it is done.
  // Counted in DeviceMemoryInUse. ResourceExhausted when the device is full.
  absl::StatusOr<DeviceMemoryBase> AllocateScratch(cudaStream_t stream, uint64_t size);
  absl::Status DeallocateScratch(cudaStream_t stream, DeviceMemoryBase* mem);

 private:
  CudaExecutor(Platform* platform, int ordinal, DeviceDescription description);

  absl::Status SynchronousMemcpy(void* dst, const void* src, uint64_t size,
                                 cudaMemcpyKind kind);

  Platform* const platform_;  // Not owned.
  const int ordinal_;
  const DeviceDescription description_;
  std::atomic<int64_t> memory_in_use_{0};
  // Made in the constructor; they keep their library handles behind their
  // own locks.
  std::unique_ptr<CudaBlas> blas_;
  std::unique_ptr<CudaDnn> dnn_;
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUDA_EXECUTOR_H_
