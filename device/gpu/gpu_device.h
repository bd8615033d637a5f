// GPUDevice: a Device over one StreamExecutor (a SimGPU or CUDA device).
//
// It owns a stream group (compute, host-to-device, device-to-host,
// device-to-device), the GPUDeviceContext that orders copies against the
// compute stream, and the intra-op pool SimGPU kernels split their Eigen
// loops over. Tensors come from the GPU's allocator stack (GPUProcessState):
// the process-wide one, or one the device owns (GPUOptions::private_allocators).
// AllocatorAttributes::on_host gets the stack's pinned host allocator.
//
// Kernels find the stream through gpu_device_info(); those registered with
// KernelDefBuilder::Platform match the device's platform_name().
//
// Thread modes (TF_GPU_THREAD_MODE): "global" runs the device's kernels on
// the session's inter-op pool; "gpu_private" gives the device two threads of
// its own; "gpu_shared" shares one pool among all GPU devices of the
// process. tensorflow_device_thread_pool() returns the pool (null for global).
//
// Thread-safe.
#ifndef MINITF_DEVICE_GPU_GPU_DEVICE_H_
#define MINITF_DEVICE_GPU_GPU_DEVICE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "device/device.h"
#include "device/gpu/gpu_device_context.h"
#include "device/gpu/gpu_options.h"
#include "device/gpu/gpu_process_state.h"
#include "runtime/gpu_op_manager.h"
#include "runtime/threadpool.h"
#include "stream/stream.h"
#include "stream/stream_executor.h"

namespace minitf {

class GPUDevice final : public Device {
 public:
  // `executor` is not owned (its Platform keeps it). `stack` is the shared
  // stack when `owned_stack` is null, else owned_stack.get(). `options` must
  // have been through ApplyGPUEnvironment.
  static absl::StatusOr<std::unique_ptr<GPUDevice>> Create(
      int id, se::StreamExecutor* executor, const GPUOptions& options,
      GPUAllocatorStack* shared_stack, std::unique_ptr<GPUAllocatorStack> owned_stack,
      int intra_op_threads);
  ~GPUDevice() override;

  Allocator* GetAllocator(AllocatorAttributes attrs) override;
  ThreadPool* intra_op_thread_pool() override { return &intra_op_pool_; }
  DeviceContext* device_context() override { return context_.get(); }
  const GPUDeviceInfo* gpu_device_info() const override { return &info_; }
  // Every node gets the device's one context: its kernels share the compute
  // stream, so stream order is dataflow order.
  absl::Status FillContextMap(int num_node_ids,
                              std::vector<DeviceContext*>* device_context_map) override;
  const std::string& platform_name() const override { return platform_name_; }
  ThreadPool* tensorflow_device_thread_pool() override { return device_pool_; }
  // Waits for every stream of the device; the first stream error.
  absl::Status Sync() override;
  // Paces this device's kernel launches when the session's job has a GPU
  // share below 100% (AntMan's perfControl); inactive otherwise.
  GpuOpQueue* gpu_op_queue() override { return op_manager_.get(); }
  // The same queue, with the controls AntMan's control plane sets (active,
  // policy, step budget). Not owned; lives as long as the device.
  GpuOpManager* gpu_op_manager() { return op_manager_.get(); }

  // The physical device's PCI bus id ("0000:50:00.0" for SimGPU device 0).
  const std::string& pci_bus_id() const { return executor_->GetDeviceDescription().pci_bus_id; }
  // Time this device's kernels have held the GPU's compute engine so far
  // (zero where the platform does not measure it).
  absl::Duration ComputeBusyTime() const { return compute_->BusyTime(); }

  se::StreamExecutor* executor() const { return executor_; }
  se::Stream* compute_stream() const { return compute_.get(); }
  // The share of the SMs the device's streams run on (GPUOptions.sm_fraction):
  // 1 without a partition. SetSmFraction is FailedPrecondition on a device
  // made without one.
  double sm_fraction() const;
  absl::Status SetSmFraction(double fraction);
  GPUDeviceContext* gpu_device_context() const { return context_.get(); }
  // The allocator stack the device's tensors come from. Not owned by the
  // caller; lives as long as the device.
  GPUAllocatorStack* allocator_stack() const { return stack_; }

 private:
  GPUDevice(int id, DeviceAttributes attributes, se::StreamExecutor* executor,
            GPUAllocatorStack* stack, std::unique_ptr<GPUAllocatorStack> owned_stack,
            int intra_op_threads);

  se::StreamExecutor* const executor_;
  const std::string platform_name_;
  // Destroyed after the streams below, which may still reference its memory
  // until drained.
  const std::unique_ptr<GPUAllocatorStack> owned_stack_;
  GPUAllocatorStack* const stack_;
  ThreadPool intra_op_pool_;
  std::shared_ptr<se::SmPartition> partition_;  // Null: every SM.
  std::unique_ptr<se::Stream> compute_;
  std::unique_ptr<se::Stream> host_to_device_;
  std::unique_ptr<se::Stream> device_to_host_;
  std::unique_ptr<se::Stream> device_to_device_;
  std::unique_ptr<GPUDeviceContext> context_;
  // Destroyed before the streams: it launches what is still queued.
  std::unique_ptr<GpuOpManager> op_manager_;
  GPUDeviceInfo info_;
  std::unique_ptr<ThreadPool> private_pool_;  // gpu_private mode.
  ThreadPool* device_pool_ = nullptr;         // Not owned when shared.
};

}  // namespace minitf

#endif  // MINITF_DEVICE_GPU_GPU_DEVICE_H_
