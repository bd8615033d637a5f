// GPUProcessState: builds and keeps the allocator stack of each GPU.
//
// The stack of one GPU (docs/ARCHITECTURE.md):
//
//   VMemAllocator                         when GPUOptions::vmem (TF_GPU_VMEM)
//     device: BFCAllocator(DeviceMemorySubAllocator, memory limit, allow_growth)
//     host:   BFCAllocator(PinnedHostSubAllocator, host_memory_limit_mb)
//
// The memory limit is GPUOptions::memory_limit_bytes when set, else
// per_process_gpu_memory_fraction of the device's memory, else the device's
// memory less a reserve (kGPUMemoryReserveBytes) for the runtime.
//
// Default() keeps one stack per physical GPU for the whole process (the
// TensorFlow behaviour: every session on GPU 0 shares one pool); a session
// with GPUOptions::private_allocators builds its own with CreateStack, so
// several jobs in one process each have their own limit over one device's
// capacity. Tests may install their own default with SetDefault.
//
// Thread-safe.
#ifndef MINITF_DEVICE_GPU_GPU_PROCESS_STATE_H_
#define MINITF_DEVICE_GPU_GPU_PROCESS_STATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "allocator/bfc_allocator.h"
#include "allocator/vmem_allocator.h"
#include "device/gpu/gpu_options.h"
#include "platform/mutex.h"
#include "stream/stream_executor.h"

namespace minitf {

// Device memory kept back from the default limit (as TensorFlow keeps some
// for the CUDA context and libraries); never more than a tenth of the device.
inline constexpr int64_t kGPUMemoryReserveBytes = int64_t{256} << 20;

// The allocators of one GPU. Owns all of them; allocator() is what kernels
// use. The pinned host BFC also backs host-side staging tensors.
class GPUAllocatorStack {
 public:
  GPUAllocatorStack(std::unique_ptr<BFCAllocator> device_bfc,
                    std::unique_ptr<BFCAllocator> host_bfc, bool vmem);
  ~GPUAllocatorStack();

  // The top of the stack: VMem when enabled, else the device BFC.
  Allocator* allocator() const;
  BFCAllocator* device_bfc() const { return device_bfc_.get(); }
  BFCAllocator* host_bfc() const { return host_bfc_.get(); }
  // Null when VMem is off.
  VMemAllocator* vmem() const { return vmem_.get(); }
  // The device BFC's limit when the stack was built.
  int64_t initial_memory_limit() const { return initial_memory_limit_; }

 private:
  const std::unique_ptr<BFCAllocator> device_bfc_;
  const std::unique_ptr<BFCAllocator> host_bfc_;
  const std::unique_ptr<VMemAllocator> vmem_;  // Destroyed first.
  const int64_t initial_memory_limit_;
};

class GPUProcessState {
 public:
  GPUProcessState() = default;
  GPUProcessState(const GPUProcessState&) = delete;
  GPUProcessState& operator=(const GPUProcessState&) = delete;

  // The process's state; never null. Construct-on-first-use.
  static GPUProcessState* Default();
  // Replaces the default (tests); returns the previous one, which the caller
  // then owns (nullptr when the built-in one was in place). `state` must
  // outlive its use as the default.
  static GPUProcessState* SetDefault(GPUProcessState* state);

  // The shared stack of `executor`'s device, built on first use with
  // `options` (later callers get the same stack whatever they pass).
  absl::StatusOr<GPUAllocatorStack*> GetGPUAllocatorStack(se::StreamExecutor* executor,
                                                          const GPUOptions& options);

  // A new stack over `executor`'s device, owned by the caller.
  static absl::StatusOr<std::unique_ptr<GPUAllocatorStack>> CreateStack(
      se::StreamExecutor* executor, const GPUOptions& options);

  // The device memory limit `options` gives a device of `total_memory` bytes.
  static absl::StatusOr<int64_t> MemoryLimit(const GPUOptions& options, int64_t total_memory);

 private:
  Mutex mu_;
  // One per device: executors live as long as the process, so their
  // addresses identify devices (two SimGPU instances both have a device 0).
  std::map<const se::StreamExecutor*, std::unique_ptr<GPUAllocatorStack>> stacks_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf

#endif  // MINITF_DEVICE_GPU_GPU_PROCESS_STATE_H_
