// GPUDeviceFactory: one GPUDevice per visible GPU of the chosen platform,
// registered above the CPU (priority 210) so that nodes with GPU kernels
// go to the GPU. The platform is GPUOptions::platform when set, else CUDA
// when it sees a device, else SimGPU (the embedded default).
#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "device/device_factory.h"
#include "device/gpu/gpu_device.h"
#include "device/gpu/gpu_process_state.h"
#include "platform/cpu_info.h"
#include "platform/logging.h"
#include "platform/status_macros.h"
#include "stream/platform_manager.h"
#include "stream/sim_gpu/sim_gpu_platform.h"

namespace minitf {
namespace {

absl::StatusOr<se::Platform*> ChoosePlatform(const GPUOptions& options) {
  if (options.platform.empty()) {
    absl::StatusOr<se::Platform*> cuda = se::PlatformManager::PlatformWithName("CUDA");
    if (cuda.ok() && (*cuda)->VisibleDeviceCount() > 0) return *cuda;
    absl::StatusOr<se::SimGPUPlatform*> sim = se::GetSimGPUPlatform(options.simgpu_options);
    if (!sim.ok()) return sim.status();
    return *sim;
  }
  if (absl::AsciiStrToLower(options.platform) == "simgpu") {
    absl::StatusOr<se::SimGPUPlatform*> sim = se::GetSimGPUPlatform(options.simgpu_options);
    if (!sim.ok()) return sim.status();
    return *sim;
  }
  return se::PlatformManager::PlatformWithName(options.platform);
}

// The platform ordinals the session may use, in order.
absl::StatusOr<std::vector<int>> VisibleOrdinals(const GPUOptions& options, int visible) {
  std::vector<int> ordinals;
  if (options.visible_device_list.empty()) {
    for (int i = 0; i < visible; ++i) ordinals.push_back(i);
    return ordinals;
  }
  for (absl::string_view piece : absl::StrSplit(options.visible_device_list, ',')) {
    int ordinal = -1;
    if (!absl::SimpleAtoi(piece, &ordinal) || ordinal < 0 || ordinal >= visible ||
        std::find(ordinals.begin(), ordinals.end(), ordinal) != ordinals.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "visible_device_list '", options.visible_device_list, "': '", piece,
          "' is not a distinct device ordinal below ", visible));
    }
    ordinals.push_back(ordinal);
  }
  return ordinals;
}

class GPUDeviceFactory : public DeviceFactory {
 public:
  absl::Status CreateDevices(const DeviceOptions& device_options,
                             std::vector<std::unique_ptr<Device>>* devices) override {
    int wanted = -1;  // All.
    if (auto it = device_options.device_count.find(DEVICE_GPU);
        it != device_options.device_count.end()) {
      wanted = it->second;
      if (wanted == 0) return absl::OkStatus();
      if (wanted < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("device_count for GPU must not be negative, got ", wanted));
      }
    }
    MINITF_ASSIGN_OR_RETURN(GPUOptions options,
                            ApplyGPUEnvironment(device_options.gpu_options));
    MINITF_ASSIGN_OR_RETURN(se::Platform * platform, ChoosePlatform(options));
    MINITF_ASSIGN_OR_RETURN(std::vector<int> ordinals,
                            VisibleOrdinals(options, platform->VisibleDeviceCount()));
    if (wanted >= 0 && static_cast<size_t>(wanted) < ordinals.size()) ordinals.resize(wanted);
    int threads = device_options.intra_op_parallelism_threads;
    if (threads <= 0) threads = NumSchedulableCPUs();
    for (size_t id = 0; id < ordinals.size(); ++id) {
      MINITF_ASSIGN_OR_RETURN(se::StreamExecutor * executor,
                              platform->ExecutorForDevice(ordinals[id]));
      GPUAllocatorStack* shared = nullptr;
      std::unique_ptr<GPUAllocatorStack> owned;
      if (options.private_allocators) {
        MINITF_ASSIGN_OR_RETURN(owned, GPUProcessState::CreateStack(executor, options));
      } else {
        MINITF_ASSIGN_OR_RETURN(shared,
                                GPUProcessState::Default()->GetGPUAllocatorStack(executor, options));
      }
      MINITF_ASSIGN_OR_RETURN(std::unique_ptr<GPUDevice> device,
                              GPUDevice::Create(static_cast<int>(id), executor, options, shared,
                                                std::move(owned), threads));
      VLOG(1, "Created {} on {}", device->name(), device->attributes().physical_device_desc);
      devices->push_back(std::move(device));
    }
    return absl::OkStatus();
  }
};

}  // namespace

REGISTER_LOCAL_DEVICE_FACTORY("GPU", GPUDeviceFactory, 210);

}  // namespace minitf
