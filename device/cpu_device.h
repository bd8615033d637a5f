// The CPU device (TensorFlow's ThreadPoolDevice): kernels run on the host,
// tensors live in host memory from the CPU allocator, and element loops are
// split over the device's intra-op thread pool.
#ifndef MINITF_DEVICE_CPU_DEVICE_H_
#define MINITF_DEVICE_CPU_DEVICE_H_

#include <memory>

#include "device/device.h"
#include "device/device_factory.h"

namespace minitf {

class ThreadPoolDevice : public Device {
 public:
  // `allocator` is not owned and must outlive the device.
  ThreadPoolDevice(int id, int intra_op_threads, Allocator* allocator);

  Allocator* GetAllocator(AllocatorAttributes attrs) override { return allocator_; }
  ThreadPool* intra_op_thread_pool() override { return &intra_op_pool_; }

 private:
  Allocator* const allocator_;
  ThreadPool intra_op_pool_;
};

class CPUDeviceFactory : public DeviceFactory {
 public:
  absl::Status CreateDevices(const DeviceOptions& options,
                             std::vector<std::unique_ptr<Device>>* devices) override;
};

}  // namespace minitf

#endif  // MINITF_DEVICE_CPU_DEVICE_H_
