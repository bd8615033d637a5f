#include "device/cpu_device.h"

#include "absl/strings/str_cat.h"
#include "platform/cpu_info.h"

namespace minitf {

namespace {
DeviceAttributes CpuAttributes(int id) {
  DeviceAttributes attrs;
  attrs.name = FullDeviceName(DEVICE_CPU, id);
  attrs.device_type = DEVICE_CPU;
  attrs.physical_device_desc = "host CPU";
  return attrs;
}
}  // namespace

ThreadPoolDevice::ThreadPoolDevice(int id, int intra_op_threads, Allocator* allocator)
    : Device(CpuAttributes(id), id),
      allocator_(allocator),
      intra_op_pool_(absl::StrCat("intra_op_cpu_", id), intra_op_threads) {}

absl::Status CPUDeviceFactory::CreateDevices(const DeviceOptions& options,
                                             std::vector<std::unique_ptr<Device>>* devices) {
  int count = 1;
  if (auto it = options.device_count.find(DEVICE_CPU); it != options.device_count.end()) {
    count = it->second;
  }
  if (count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("device_count for CPU must be at least 1, got ", count));
  }
  int threads = options.intra_op_parallelism_threads;
  if (threads <= 0) threads = NumSchedulableCPUs();
  for (int i = 0; i < count; ++i) {
    devices->push_back(std::make_unique<ThreadPoolDevice>(i, threads, cpu_allocator()));
  }
  return absl::OkStatus();
}

REGISTER_LOCAL_DEVICE_FACTORY("CPU", CPUDeviceFactory, 60);

}  // namespace minitf
