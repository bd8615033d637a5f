// DeviceBase: what the runtime (executor, kernels) needs of a device; the
// concrete devices live in device/. DeviceContext: how tensors move between
// a device and the host, implemented by devices with their own memory.
#ifndef MINITF_RUNTIME_DEVICE_BASE_H_
#define MINITF_RUNTIME_DEVICE_BASE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "allocator/allocator.h"
#include "runtime/threadpool.h"

namespace minitf {

namespace se {
class Stream;
class StreamExecutor;
}  // namespace se

class AsyncOpKernel;
class DeviceBase;
class GpuOpQueue;
class OpKernel;
class OpKernelContext;
class ResourceMgr;
class Tensor;

// Device type names.
inline constexpr char DEVICE_CPU[] = "CPU";
inline constexpr char DEVICE_GPU[] = "GPU";

using StatusCallback = std::function<void(const absl::Status&)>;

// Where an allocation should live.
struct AllocatorAttributes {
  // Host memory even on a device with memory of its own.
  bool on_host = false;
};

// Moves tensors between host and device memory, ordered on the device's
// streams. The defaults return Unimplemented (devices without their own
// memory never need them).
class DeviceContext {
 public:
  virtual ~DeviceContext() = default;
  virtual void CopyCPUTensorToDevice(const Tensor* cpu_tensor, DeviceBase* device,
                                     Tensor* device_tensor, StatusCallback done) const;
  virtual void CopyDeviceTensorToCPU(const Tensor* device_tensor, DeviceBase* device,
                                     Tensor* cpu_tensor, StatusCallback done) const;
};

// What a kernel on a GPU device needs of it (TensorFlow's
// GPUDeviceInfo): the stream its work goes on and the executor behind it.
// Pointers are not owned; they live as long as the device.
struct GPUDeviceInfo {
  se::Stream* stream = nullptr;             // The compute stream.
  se::StreamExecutor* executor = nullptr;   // stream->parent().
  DeviceContext* default_context = nullptr;
  int gpu_id = 0;
};

class DeviceBase {
 public:
  virtual ~DeviceBase() = default;

  // "/job:localhost/replica:0/task:0/device:CPU:0".
  virtual const std::string& name() const = 0;
  // "CPU", "GPU".
  virtual const std::string& device_type() const = 0;

  // The allocator kernels use for their outputs and temporaries. Not owned.
  virtual Allocator* GetAllocator(AllocatorAttributes attrs) = 0;
  // State shared across steps (variables). Not owned; lives as the device.
  virtual ResourceMgr* resource_manager() = 0;
  // The intra-op pool kernels split element loops over. Not owned.
  virtual ThreadPool* intra_op_thread_pool() = 0;
  const Eigen::ThreadPoolDevice& eigen_cpu_device() {
    return intra_op_thread_pool()->eigen_device();
  }
  // Host-to-device copies; nullptr for devices that compute in host memory.
  virtual DeviceContext* device_context() { return nullptr; }
  // Which DeviceContext each node of a partition placed here uses, indexed
  // by node id (TensorFlow's FillContextMap); entries stay null for nodes
  // that need none. `num_node_ids` is the graph's node id bound. Devices
  // without their own memory leave the map empty.
  virtual absl::Status FillContextMap(int num_node_ids,
                                      std::vector<DeviceContext*>* device_context_map) {
    return absl::OkStatus();
  }
  // Non-null only on GPU devices.
  virtual const GPUDeviceInfo* gpu_device_info() const { return nullptr; }
  // The queue that paces this device's async GPU launches (AntMan compute
  // pacing); non-null on GPU devices. Not owned; lives as long as the device.
  virtual GpuOpQueue* gpu_op_queue() { return nullptr; }
  // The stream platform whose kernels this device runs ("SimGPU", "CUDA");
  // empty for devices without one (CPU). Kernels registered with
  // KernelDefBuilder::Platform match only devices of that platform.
  virtual const std::string& platform_name() const;

  // Runs a kernel. Devices override these to add bookkeeping (streams, timing).
  virtual void Compute(OpKernel* op_kernel, OpKernelContext* context);
  virtual void ComputeAsync(AsyncOpKernel* op_kernel, OpKernelContext* context,
                            std::function<void()> done);
  // The pool this device's kernels run on when it keeps one of its own
  // (GPU thread modes gpu_private / gpu_shared); null: the session's.
  virtual ThreadPool* tensorflow_device_thread_pool() { return nullptr; }
  // Waits for outstanding device work; an error if it failed.
  virtual absl::Status Sync() { return absl::OkStatus(); }
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_DEVICE_BASE_H_
