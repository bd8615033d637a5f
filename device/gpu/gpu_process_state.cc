#include "device/gpu/gpu_process_state.h"

#include <algorithm>
#include <atomic>

#include "absl/strings/str_cat.h"
#include "device/gpu/gpu_sub_allocators.h"
#include "platform/host_memory.h"
#include "platform/logging.h"
#include "stream/platform.h"

namespace minitf {

GPUAllocatorStack::GPUAllocatorStack(std::unique_ptr<BFCAllocator> device_bfc,
                                     std::unique_ptr<BFCAllocator> host_bfc, bool vmem)
    : device_bfc_(std::move(device_bfc)),
      host_bfc_(std::move(host_bfc)),
      vmem_(vmem ? std::make_unique<VMemAllocator>(device_bfc_.get(), host_bfc_.get())
                 : nullptr),
      initial_memory_limit_(static_cast<int64_t>(device_bfc_->GetPoolStats().memory_limit)) {}

GPUAllocatorStack::~GPUAllocatorStack() = default;

Allocator* GPUAllocatorStack::allocator() const {
  if (vmem_ != nullptr) return vmem_.get();
  return device_bfc_.get();
}

namespace {

std::atomic<GPUProcessState*> g_default{nullptr};

// The pinned host pool's limit: host_memory_limit_mb, lowered to the host
// memory this process may have (physical memory, its cgroup's limit), so
// that tensors spilled to the host end in RESOURCE_EXHAUSTED rather than
// with the OOM killer. A limit set above the machine's is said once.
int64_t HostLimit(int64_t limit_mb) {
  const int64_t wanted = limit_mb << 20;
  // What the process's host memory budget allows (the machine's, cgroup's
  // or ulimit's limit less a margin), which the pinned pool shares.
  const int64_t machine = HostMemoryBudget::Process().limit();
  if (machine <= 0 || wanted <= machine) return wanted;
  if (limit_mb != GPUOptions().host_memory_limit_mb) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) {
      LOG(WARNING, "host memory limit {} MiB (TF_CUDA_HOST_MEM_LIMIT_IN_MB) is more than this "
                   "process may have; using {} MiB",
          limit_mb, machine >> 20);
    }
  }
  return machine;
}

}  // namespace

GPUProcessState* GPUProcessState::Default() {
  static GPUProcessState* const built_in = new GPUProcessState();
  GPUProcessState* state = g_default.load(std::memory_order_acquire);
  return state != nullptr ? state : built_in;
}

GPUProcessState* GPUProcessState::SetDefault(GPUProcessState* state) {
  return g_default.exchange(state, std::memory_order_acq_rel);
}

absl::StatusOr<int64_t> GPUProcessState::MemoryLimit(const GPUOptions& options,
                                                     int64_t total_memory) {
  if (options.memory_limit_bytes > 0) {
    if (options.memory_limit_bytes > total_memory) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GPU memory limit ", options.memory_limit_bytes, " bytes exceeds the device's ",
          total_memory, " bytes"));
    }
    return options.memory_limit_bytes;
  }
  if (options.per_process_gpu_memory_fraction > 0) {
    return static_cast<int64_t>(options.per_process_gpu_memory_fraction *
                                static_cast<double>(total_memory));
  }
  return total_memory - std::min(kGPUMemoryReserveBytes, total_memory / 10);
}

absl::StatusOr<std::unique_ptr<GPUAllocatorStack>> GPUProcessState::CreateStack(
    se::StreamExecutor* executor, const GPUOptions& options) {
  const se::DeviceDescription& desc = executor->GetDeviceDescription();
  absl::StatusOr<int64_t> limit = MemoryLimit(options, desc.total_memory);
  if (!limit.ok()) {
    return absl::Status(limit.status().code(),
                        absl::StrCat(desc.platform, " device ", desc.ordinal, ": ",
                                     limit.status().message()));
  }
  const std::string prefix = absl::StrCat(desc.platform, "_", desc.ordinal);
  BFCAllocator::Options device_options;
  device_options.allow_growth = options.allow_growth;
  device_options.garbage_collection = true;
  device_options.name = absl::StrCat(prefix, "_bfc");
  auto device_bfc = std::make_unique<BFCAllocator>(
      std::make_unique<DeviceMemorySubAllocator>(executor), static_cast<size_t>(*limit),
      device_options);
  BFCAllocator::Options host_options;
  host_options.allow_growth = true;
  host_options.garbage_collection = true;
  host_options.name = absl::StrCat(prefix, "_pinned_host_bfc");
  auto host_bfc = std::make_unique<BFCAllocator>(
      std::make_unique<PinnedHostSubAllocator>(executor),
      static_cast<size_t>(HostLimit(options.host_memory_limit_mb)), host_options);
  return std::make_unique<GPUAllocatorStack>(std::move(device_bfc), std::move(host_bfc),
                                             options.vmem);
}

absl::StatusOr<GPUAllocatorStack*> GPUProcessState::GetGPUAllocatorStack(
    se::StreamExecutor* executor, const GPUOptions& options) {
  MutexLock lock(&mu_);
  auto it = stacks_.find(executor);
  if (it != stacks_.end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<GPUAllocatorStack>> stack = CreateStack(executor, options);
  if (!stack.ok()) return stack.status();
  GPUAllocatorStack* raw = stack->get();
  stacks_.emplace(executor, *std::move(stack));
  return raw;
}

}  // namespace minitf
