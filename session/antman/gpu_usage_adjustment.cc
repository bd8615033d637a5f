#include "session/antman/gpu_usage_adjustment.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "allocator/adjustable_allocator.h"

namespace minitf {

absl::StatusOr<GPUDevice*> GPUUsageAdjustment::FindDevice(const DeviceMgr& device_mgr,
                                                          absl::string_view key) {
  const std::string wanted = absl::AsciiStrToLower(key);
  std::vector<std::string> known;
  for (Device* device : device_mgr.ListDevices()) {
    auto* gpu = dynamic_cast<GPUDevice*>(device);
    if (gpu == nullptr) continue;
    const std::string name = absl::StrCat("GPU:", gpu->id());
    const std::string bus_id = absl::AsciiStrToLower(gpu->pci_bus_id());
    if (wanted == bus_id || key == name) return gpu;
    known.push_back(absl::StrCat(name, " (", bus_id, ")"));
  }
  return absl::NotFoundError(absl::StrCat(
      "no GPU '", key, "' in this session; its GPUs are: ",
      known.empty() ? std::string("none") : absl::StrJoin(known, ", ")));
}

GPUUsageAdjustment::Result GPUUsageAdjustment::AdjustMemLimit(GPUDevice* device, int64_t bytes) {
  GPUAllocatorStack* stack = device->allocator_stack();
  Result result;
  result.requested = bytes;
  result.target = std::min(bytes, stack->initial_memory_limit());
  const size_t reached = AdjustableAllocator().AdjustMemoryLimit(
      static_cast<size_t>(result.target), stack->device_bfc());
  result.in_force = static_cast<int64_t>(reached);
  result.reached = result.in_force == result.target;
  return result;
}

}  // namespace minitf
