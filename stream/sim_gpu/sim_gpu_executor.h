// SimGPUExecutor: the StreamExecutor of one SimGPU device. It owns the
// device's memory (SimGPUMemory: one lazily made reservation of
// options.memory_bytes, capacity strictly enforced), its compute engine
// (SimGPUEngine: one kernel at a time, shared by every stream and every user
// of the device in the process) and its BLAS plugin (SimGPUBlas). Streams are
// SimGPUStreams, events HostEvents; pinned host memory is plain aligned host
// memory; synchronous copies copy at once and, in compute and timing modes,
// hold the calling thread for their modeled time.
//
//   SimGPUPlatform* sim = *GetSimGPUPlatform("memory=64MiB");
//   StreamExecutor* gpu0 = *sim->ExecutorForDevice(0);
//   DeviceMemoryBase buf = gpu0->Allocate(1 << 20);   // null past capacity
//   gpu0->GetDeviceDescription().pci_bus_id;          // "0000:50:00.0"
//
// Device description: name "SimGPU (V100-like)" with the throughput figures
// of the GPU profile (gpu=v100; "SimGPU (H100-like)" for gpu=h100), else
// "SimGPU (<tflops> TFLOP/s, <hbm_gbps> GB/s HBM)"; PCI bus id
// "0000:%02x:00.0" with bus 0x50 + ordinal.
//
// Thread-safe. Owned by its SimGPUPlatform; streams and events it makes must
// be destroyed before it.
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_EXECUTOR_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_EXECUTOR_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "stream/host/stream_set.h"
#include "stream/sim_gpu/sim_gpu_engine.h"
#include "stream/sim_gpu/sim_gpu_memory.h"
#include "stream/sim_gpu/sim_gpu_options.h"
#include "stream/sim_gpu/sim_gpu_shared_device.h"
#include "stream/stream_executor.h"

namespace minitf::se {

class SimGPUBlas;

// share=mps: the fraction of the SMs a process's kernels may hold, from
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE as MPS reads it (unset or empty: 1);
// InvalidArgument naming the variable for a value outside (0, 100].
absl::StatusOr<double> MpsActiveThreadFraction();
// share=mps: a process's MPS client priority level from
// CUDA_MPS_CLIENT_PRIORITY as MPS reads it: 0 (NORMAL; also unset or
// empty) or 1 (BELOW_NORMAL); InvalidArgument naming the variable for
// anything else.
absl::StatusOr<int> MpsClientPriority();

class SimGPUExecutor : public StreamExecutor {
 public:
  static constexpr uint64_t kHostMemoryAlignment = 4096;  // Page-aligned, as pinned memory is.

  // `platform` is not owned and outlives the executor. With options.shared,
  // attaches to that shared device (errors as SharedSimGPUDevice::Attach's).
  static absl::StatusOr<std::unique_ptr<SimGPUExecutor>> Create(Platform* platform, int ordinal,
                                                                const SimGPUOptions& options);
  ~SimGPUExecutor() override;

  SimGPUExecutor(Platform* platform, int ordinal, const SimGPUOptions& options,
                 std::unique_ptr<SharedSimGPUDevice> shared = nullptr);

  Platform* platform() const override { return platform_; }
  int device_ordinal() const override { return ordinal_; }
  const DeviceDescription& GetDeviceDescription() const override { return description_; }

  DeviceMemoryBase Allocate(uint64_t size) override;
  void Deallocate(DeviceMemoryBase* mem) override;
  int64_t DeviceMemoryInUse() const override;
  bool IsDeviceMemory(const void* ptr) const override;
  // Whether host code faults on this device's memory (strict mode took; see
  // sim_gpu_memory.h). False until the first allocation.
  bool DeviceMemoryProtectedFromHost() const { return memory_.ProtectedFromHost(); }

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
  // InvalidArgument outside timing mode (the SM model's).
  absl::StatusOr<std::unique_ptr<Stream>> CreateStreamInPartition(
      StreamPriority priority, std::shared_ptr<SmPartition> partition) override;
  absl::StatusOr<std::unique_ptr<Event>> CreateEvent() override;
  absl::Status SynchronizeAllActivity() override;

  // Engine time of every kernel run on this device so far (see
  // sim_gpu_engine.h for what each mode charges).
  absl::Duration DeviceBusyTime() const override { return engine_.BusyTime(); }
  BlasSupport* AsBlas() override;

  const SimGPUOptions& options() const { return options_; }
  // DeviceBusyTime per op family (KernelCost::family), indexed by
  // KernelFamily.
  std::array<absl::Duration, kKernelFamilyCount> BusyTimeByFamily() const {
    return engine_.BusyTimeByFamily();
  }
  // Kernels run on this device so far.
  int64_t KernelCount() const { return engine_.KernelCount(); }
  // The same, per op family.
  std::array<int64_t, kKernelFamilyCount> KernelCountByFamily() const {
    return engine_.KernelCountByFamily();
  }
  // Of those, the kernels whose body ran: in timing mode, only those that
  // must (HostKernel::run_in_timing_mode).
  int64_t BodyCount() const { return engine_.BodyCount(); }
  // Times a running kernel yielded the engine to a higher-priority stream's.
  int64_t PreemptionCount() const { return engine_.PreemptionCount(); }

 private:
  // Holds the caller for what a synchronous copy of `bytes` has left of its
  // modeled time (compute and timing modes).
  void HoldForCopy(absl::Time start, uint64_t bytes, bool crosses_pcie) const;

  // Constant after construction.
  Platform* const platform_;
  const int ordinal_;
  const SimGPUOptions options_;
  const DeviceDescription description_;

  // Thread-safe members.
  const std::unique_ptr<SharedSimGPUDevice> shared_;  // Null unless options.shared.
  SimGPUMemory memory_;
  SimGPUEngine engine_;
  StreamSet streams_;
  const std::unique_ptr<SimGPUBlas> blas_;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_EXECUTOR_H_
