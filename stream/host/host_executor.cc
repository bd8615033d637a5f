#include "stream/host/host_executor.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "platform/logging.h"
#include "stream/host/aligned_host_memory.h"
#include "stream/host/checked_copy.h"
#include "stream/host/host_event.h"
#include "stream/host/host_stream.h"
#include "stream/platform.h"

namespace minitf::se {
namespace {

DeviceDescription HostDescription(const Platform* platform) {
  DeviceDescription d;
  d.platform = platform->Name();
  d.ordinal = 0;
  d.name = "Host CPU";
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) d.total_memory = int64_t{pages} * page_size;
  return d;
}

}  // namespace

HostExecutor::HostExecutor(Platform* platform)
    : platform_(platform), description_(HostDescription(platform)) {}

HostExecutor::~HostExecutor() {
  MutexLock lock(&mu_);
  if (!allocations_.empty()) {
    LOG(WARNING, "Host executor destroyed with {} allocations ({} bytes) still live",
                 allocations_.size(), bytes_in_use_);
  }
}

DeviceMemoryBase HostExecutor::Allocate(uint64_t size) {
  void* ptr = AlignedHostAllocate(size, kAlignment);
  if (ptr == nullptr) return DeviceMemoryBase();
  MutexLock lock(&mu_);
  allocations_[reinterpret_cast<uintptr_t>(ptr)] = size;
  bytes_in_use_ += static_cast<int64_t>(size);
  return DeviceMemoryBase(ptr, size);
}

void HostExecutor::Deallocate(DeviceMemoryBase* mem) {
  if (mem == nullptr || mem->is_null()) return;
  {
    MutexLock lock(&mu_);
    auto it = allocations_.find(reinterpret_cast<uintptr_t>(mem->opaque()));
    if (it == allocations_.end()) {
      LOG(ERROR, "Host executor: Deallocate of {} which it did not allocate", mem->opaque());
      return;
    }
    bytes_in_use_ -= static_cast<int64_t>(it->second);
    allocations_.erase(it);
  }
  AlignedHostFree(mem->opaque(), kAlignment);
  *mem = DeviceMemoryBase();
}

int64_t HostExecutor::DeviceMemoryInUse() const {
  MutexLock lock(&mu_);
  return bytes_in_use_;
}

bool HostExecutor::IsDeviceMemory(const void* ptr) const {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  MutexLock lock(&mu_);
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return false;
  --it;
  return address < it->first + std::max<uint64_t>(it->second, 1);
}

void* HostExecutor::HostMemoryAllocate(uint64_t size) {
  return AlignedHostAllocate(size, kPinnedHostAlignment);
}

void HostExecutor::HostMemoryDeallocate(void* ptr, uint64_t size) {
  AlignedHostFree(ptr, kPinnedHostAlignment);
}

absl::Status HostExecutor::SynchronousMemcpyH2D(const void* host_src, uint64_t size,
                                                DeviceMemoryBase* gpu_dst) {
  if (gpu_dst == nullptr) return absl::InvalidArgumentError("Host: null copy destination");
  return CheckedCopy("Host: host-to-device copy", gpu_dst->opaque(), gpu_dst->size(), host_src,
                     size, size);
}

absl::Status HostExecutor::SynchronousMemcpyD2H(const DeviceMemoryBase& gpu_src, uint64_t size,
                                                void* host_dst) {
  return CheckedCopy("Host: device-to-host copy", host_dst, size, gpu_src.opaque(),
                     gpu_src.size(), size);
}

absl::Status HostExecutor::SynchronousMemcpyD2D(const DeviceMemoryBase& gpu_src, uint64_t size,
                                                DeviceMemoryBase* gpu_dst) {
  if (gpu_dst == nullptr) return absl::InvalidArgumentError("Host: null copy destination");
  return CheckedCopy("Host: device-to-device copy", gpu_dst->opaque(), gpu_dst->size(),
                     gpu_src.opaque(), gpu_src.size(), size);
}

absl::StatusOr<std::unique_ptr<Stream>> HostExecutor::CreateStream() {
  return std::make_unique<HostStream>(this, &streams_);
}

absl::StatusOr<std::unique_ptr<Event>> HostExecutor::CreateEvent() {
  return std::make_unique<HostEvent>();
}

absl::Status HostExecutor::SynchronizeAllActivity() {
  streams_.SynchronizeAll();
  return absl::OkStatus();
}

}  // namespace minitf::se
