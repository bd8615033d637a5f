#include "stream/sim_gpu/sim_gpu_executor.h"

#include <cmath>
#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "stream/device_memory_protection.h"
#include "stream/host/aligned_host_memory.h"
#include "stream/host/checked_copy.h"
#include "stream/host/host_event.h"
#include "stream/host/sleep_until.h"
#include "stream/platform.h"
#include "stream/sim_gpu/sim_gpu_blas.h"
#include "stream/sim_gpu/sim_gpu_cost_model.h"
#include "stream/sim_gpu/sim_gpu_profile.h"
#include "stream/sim_gpu/sim_gpu_stream.h"

namespace minitf::se {
namespace {

constexpr int kFirstPciBus = 0x50;

DeviceDescription SimGPUDescription(const Platform* platform, int ordinal,
                                    const SimGPUOptions& options) {
  const GpuProfile& profile = GetGpuProfile(options.gpu);
  DeviceDescription d;
  d.platform = platform->Name();
  d.ordinal = ordinal;
  if (options.tflops == profile.tflops && options.hbm_gbps == profile.hbm_gbps &&
      options.pcie_gbps == profile.pcie_gbps) {
    d.name = absl::StrCat("SimGPU (", absl::AsciiStrToUpper(profile.name), "-like)");
  } else {
    d.name = absl::StrCat("SimGPU (", options.tflops, " TFLOP/s, ", options.hbm_gbps,
                          " GB/s HBM)");
  }
  d.pci_bus_id = absl::StrFormat("0000:%02x:00.0", kFirstPciBus + ordinal);
  d.total_memory = options.memory_bytes;
  d.peak_tflops = options.tflops;
  d.memory_bandwidth_gbps = options.hbm_gbps;
  d.pcie_bandwidth_gbps = options.pcie_gbps;
  d.sm_count = options.sm_count;
  return d;
}

}  // namespace

absl::StatusOr<double> MpsActiveThreadFraction() {
  const char* value = std::getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
  if (value == nullptr || *value == '\0') return 1.0;
  double percent = 0;
  if (!absl::SimpleAtod(value, &percent) || !std::isfinite(percent) || percent <= 0 ||
      percent > 100) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=\"", absl::CEscape(value),
        "\" is not a percentage in (0, 100]"));
  }
  return percent / 100;
}

absl::StatusOr<int> MpsClientPriority() {
  const char* value = std::getenv("CUDA_MPS_CLIENT_PRIORITY");
  if (value == nullptr || *value == '\0') return 0;
  const absl::string_view level(value);
  if (level == "0") return 0;
  if (level == "1") return 1;
  return absl::InvalidArgumentError(absl::StrCat(
      "CUDA_MPS_CLIENT_PRIORITY=\"", absl::CEscape(value),
      "\" is not a priority level: 0 (NORMAL) or 1 (BELOW_NORMAL)"));
}

absl::StatusOr<std::unique_ptr<SimGPUExecutor>> SimGPUExecutor::Create(
    Platform* platform, int ordinal, const SimGPUOptions& options) {
  std::unique_ptr<SharedSimGPUDevice> shared;
  if (!options.shared.empty()) {
    absl::StatusOr<std::unique_ptr<SharedSimGPUDevice>> attached =
        SharedSimGPUDevice::Attach(
            options.shared, ordinal, options.memory_bytes,
            {.mode = options.share,
             .timeslice = absl::Nanoseconds(options.timeslice_us * 1e3),
             .sm_count = options.sm_count,
             .drain = absl::Nanoseconds(options.preempt_us * 1e3)});
    if (!attached.ok()) return attached.status();
    (*attached)->SetDefers(options.defer, absl::Nanoseconds(options.defer_idle_us * 1e3));
    if (options.share == SimGPUOptions::Share::kMps) {
      absl::StatusOr<double> fraction = MpsActiveThreadFraction();
      if (!fraction.ok()) return fraction.status();
      (*attached)->SetActiveThreadFraction(*fraction);
      absl::StatusOr<int> level = MpsClientPriority();
      if (!level.ok()) return level.status();
      (*attached)->SetClientPriority(*level);
    }
    shared = *std::move(attached);
  }
  return std::make_unique<SimGPUExecutor>(platform, ordinal, options, std::move(shared));
}

SimGPUExecutor::SimGPUExecutor(Platform* platform, int ordinal, const SimGPUOptions& options,
                               std::unique_ptr<SharedSimGPUDevice> shared)
    : platform_(platform),
      ordinal_(ordinal),
      options_(options),
      description_(SimGPUDescription(platform, ordinal, options)),
      shared_(std::move(shared)),
      memory_(options.memory_bytes, absl::StrCat(platform->Name(), ":", ordinal), options.strict,
              shared_.get()),
      engine_(options.mode, absl::Microseconds(options.preempt_us), shared_.get(),
              options.sm_count),
      blas_(std::make_unique<SimGPUBlas>(this)) {}

SimGPUExecutor::~SimGPUExecutor() = default;

DeviceMemoryBase SimGPUExecutor::Allocate(uint64_t size) {
  void* ptr = memory_.Allocate(size);
  if (ptr == nullptr) return DeviceMemoryBase();
  return DeviceMemoryBase(ptr, size);
}

void SimGPUExecutor::Deallocate(DeviceMemoryBase* mem) {
  if (mem == nullptr || mem->is_null()) return;
  memory_.Deallocate(mem->opaque());
  *mem = DeviceMemoryBase();
}

int64_t SimGPUExecutor::DeviceMemoryInUse() const { return memory_.DeviceBytesInUse(); }

bool SimGPUExecutor::IsDeviceMemory(const void* ptr) const { return memory_.Contains(ptr); }

void* SimGPUExecutor::HostMemoryAllocate(uint64_t size) {
  return AlignedHostAllocate(size, kHostMemoryAlignment);
}

void SimGPUExecutor::HostMemoryDeallocate(void* ptr, uint64_t size) {
  AlignedHostFree(ptr, kHostMemoryAlignment);
}

void SimGPUExecutor::HoldForCopy(absl::Time start, uint64_t bytes, bool crosses_pcie) const {
  if (options_.mode == SimGPUOptions::Mode::kFunctional) return;
  SleepUntil(start + ModeledTransferTime(options_, bytes, crosses_pcie));
}

absl::Status SimGPUExecutor::SynchronousMemcpyH2D(const void* host_src, uint64_t size,
                                                  DeviceMemoryBase* gpu_dst) {
  if (gpu_dst == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("SimGPU:", ordinal_, ": null copy destination"));
  }
  const absl::Time start = absl::Now();
  ScopedDeviceMemoryAccess access;  // The copy engine's, for the copy.
  absl::Status status = CheckedCopy(absl::StrCat("SimGPU:", ordinal_, " host-to-device copy"),
                                    gpu_dst->opaque(), gpu_dst->size(), host_src, size, size);
  if (status.ok()) HoldForCopy(start, size, /*crosses_pcie=*/true);
  return status;
}

absl::Status SimGPUExecutor::SynchronousMemcpyD2H(const DeviceMemoryBase& gpu_src, uint64_t size,
                                                  void* host_dst) {
  const absl::Time start = absl::Now();
  ScopedDeviceMemoryAccess access;  // The copy engine's, for the copy.
  absl::Status status = CheckedCopy(absl::StrCat("SimGPU:", ordinal_, " device-to-host copy"),
                                    host_dst, size, gpu_src.opaque(), gpu_src.size(), size);
  if (status.ok()) HoldForCopy(start, size, /*crosses_pcie=*/true);
  return status;
}

absl::Status SimGPUExecutor::SynchronousMemcpyD2D(const DeviceMemoryBase& gpu_src, uint64_t size,
                                                  DeviceMemoryBase* gpu_dst) {
  if (gpu_dst == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("SimGPU:", ordinal_, ": null copy destination"));
  }
  const absl::Time start = absl::Now();
  ScopedDeviceMemoryAccess access;  // The copy engine's, for the copy.
  absl::Status status =
      CheckedCopy(absl::StrCat("SimGPU:", ordinal_, " device-to-device copy"), gpu_dst->opaque(),
                  gpu_dst->size(), gpu_src.opaque(), gpu_src.size(), size);
  if (status.ok()) HoldForCopy(start, size, /*crosses_pcie=*/false);
  return status;
}

absl::StatusOr<std::unique_ptr<Stream>> SimGPUExecutor::CreateStream() {
  return CreateStreamWithPriority(StreamPriority::kDefault);
}

absl::StatusOr<std::unique_ptr<Stream>> SimGPUExecutor::CreateStreamWithPriority(
    StreamPriority priority) {
  return std::make_unique<SimGPUStream>(this, &streams_, &engine_, options_, priority);
}

absl::StatusOr<std::unique_ptr<Stream>> SimGPUExecutor::CreateStreamInPartition(
    StreamPriority priority, std::shared_ptr<SmPartition> partition) {
  if (options_.mode != SimGPUOptions::Mode::kTiming) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GPU:", device_ordinal(),
        ": a stream on a share of the SMs (a green context; GPUOptions.sm_fraction, pacing "
        "policy 'sms') needs SimGPU's timing mode, where kernels share SMs; mode is ",
        SimGPUModeName(options_.mode)));
  }
  if (partition == nullptr) return CreateStreamWithPriority(priority);
  return std::make_unique<SimGPUStream>(this, &streams_, &engine_, options_, priority,
                                        std::move(partition));
}

absl::StatusOr<std::unique_ptr<Event>> SimGPUExecutor::CreateEvent() {
  return std::make_unique<HostEvent>();
}

absl::Status SimGPUExecutor::SynchronizeAllActivity() {
  streams_.SynchronizeAll();
  return absl::OkStatus();
}

BlasSupport* SimGPUExecutor::AsBlas() { return blas_.get(); }

}  // namespace minitf::se
