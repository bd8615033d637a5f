#include "stream/sim_gpu/sim_gpu_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <utility>

#include "platform/host_memory.h"
#include "platform/logging.h"
#include "stream/device_memory_protection.h"
#include "stream/sim_gpu/sim_gpu_shared_device.h"

namespace minitf::se {
namespace {

uint64_t RoundUp(uint64_t x, uint64_t multiple) { return (x + multiple - 1) / multiple * multiple; }
uint64_t RoundDown(uint64_t x, uint64_t multiple) { return x / multiple * multiple; }

uint64_t PageSize() {
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<uint64_t>(page) : 4096;
}

}  // namespace

SimGPUMemory::SimGPUMemory(int64_t capacity, std::string device_name, bool strict,
                           SharedSimGPUDevice* shared)
    : capacity_(RoundDown(capacity > 0 ? static_cast<uint64_t>(capacity) : 0, kAlignment)),
      mapping_size_(RoundUp(capacity_, PageSize())),
      page_size_(PageSize()),
      device_name_(std::move(device_name)),
      strict_(strict),
      shared_(shared) {
  const int64_t budget = HostMemoryBudget::Process().limit();
  if (budget > 0 && static_cast<int64_t>(capacity_) > budget) {
    LOG(WARNING,
        "{}: {} bytes of device memory, more than this process may hold in host memory, which "
        "backs it ({} bytes: the machine's, cgroup's or ulimit's limit less a margin); "
        "allocations past that fail as out of device memory",
        device_name_, capacity_, budget);
  }
}

SimGPUMemory::~SimGPUMemory() {
  MutexLock lock(&mu_);
  if (!allocated_.empty()) {
    LOG(WARNING, "{}: device memory destroyed with {} allocations ({} bytes) still live",
                 device_name_, allocated_.size(), bytes_in_use_);
  }
  HostMemoryBudget::Process().Release(static_cast<int64_t>(bytes_in_use_));
  if (base_ != nullptr) munmap(base_, mapping_size_);
}

bool SimGPUMemory::EnsureReserved() {
  if (base_ != nullptr) return true;
  if (reservation_failed_ || capacity_ == 0) return false;
  void* base = mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    LOG(WARNING, "{}: cannot reserve {} bytes of device memory: {}", device_name_, mapping_size_,
                 std::strerror(errno));
    reservation_failed_ = true;
    return false;
  }
  base_ = static_cast<char*>(base);
  free_.emplace(0, capacity_);
  // Strict: addresses are handed out tagged (every machine); where there
  // are protection keys, the real range is keyed too.
  if (strict_ && ProtectionKeysAvailable()) {
    absl::Status s = ProtectWithKey(base_, mapping_size_);
    if (!s.ok()) {
      LOG(WARNING, "{}: no protection key on device memory: {}", device_name_, s.ToString());
    }
  }
  return true;
}

void* SimGPUMemory::Allocate(uint64_t size) {
  if (size == 0 || size > capacity_) return nullptr;
  const uint64_t rounded = RoundUp(size, kAlignment);
  MutexLock lock(&mu_);
  if (!EnsureReserved()) return nullptr;
  if (shared_ != nullptr && !shared_->Reserve(static_cast<int64_t>(rounded))) return nullptr;
  // The device's memory is the host's: within what the process may hold.
  HostMemoryBudget& host = HostMemoryBudget::Process();
  if (!host.TryReserve(static_cast<int64_t>(rounded))) {
    if (shared_ != nullptr) shared_->Unreserve(static_cast<int64_t>(rounded));
    return nullptr;
  }
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < rounded) continue;
    const auto [offset, free_size] = *it;
    free_.erase(it);
    if (free_size > rounded) free_.emplace(offset + rounded, free_size - rounded);
    allocated_.emplace(offset, rounded);
    bytes_in_use_ += rounded;
    return strict_ ? TagAsDeviceAddress(base_ + offset) : base_ + offset;
  }
  host.Release(static_cast<int64_t>(rounded));
  if (shared_ != nullptr) shared_->Unreserve(static_cast<int64_t>(rounded));
  return nullptr;
}

void SimGPUMemory::Deallocate(void* ptr) {
  if (ptr == nullptr) return;
  MutexLock lock(&mu_);
  const char* p = static_cast<const char*>(RealAddress(ptr));
  auto found = base_ == nullptr || p < base_ ? allocated_.end()
                                             : allocated_.find(static_cast<uint64_t>(p - base_));
  if (found == allocated_.end()) {
    LOG(ERROR, "{}: Deallocate of {}, which is not a live allocation of this device",
                  device_name_, ptr);
    return;
  }
  const uint64_t offset = found->first;
  const uint64_t size = found->second;
  allocated_.erase(found);
  bytes_in_use_ -= size;
  HostMemoryBudget::Process().Release(static_cast<int64_t>(size));
  if (shared_ != nullptr) shared_->Unreserve(static_cast<int64_t>(size));

  // Coalesce with the free neighbours.
  uint64_t begin = offset;
  uint64_t end = offset + size;
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && next->first == end) {
    end += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == begin) {
      begin = prev->first;
      free_.erase(prev);
    }
  }
  free_.emplace(begin, end - begin);
  // Whole pages of the freed block, extended into the free neighbours so
  // that pages it shares with them go too.
  ReleasePages(std::max(begin, RoundDown(offset, page_size_)),
               std::min(end, RoundUp(offset + size, page_size_)));
}

void SimGPUMemory::ReleasePages(uint64_t begin, uint64_t end) {
  begin = RoundUp(begin, page_size_);
  end = RoundDown(end, page_size_);
  if (begin >= end) return;
  if (madvise(base_ + begin, end - begin, MADV_DONTNEED) != 0) {
    LOG(WARNING, "{}: madvise(MADV_DONTNEED) of {} bytes failed: {}", device_name_, end - begin,
                 std::strerror(errno));
  }
}

int64_t SimGPUMemory::BytesInUse() const {
  MutexLock lock(&mu_);
  return static_cast<int64_t>(bytes_in_use_);
}

int64_t SimGPUMemory::DeviceBytesInUse() const {
  return shared_ != nullptr ? shared_->BytesInUse() : BytesInUse();
}

bool SimGPUMemory::Contains(const void* ptr) const {
  MutexLock lock(&mu_);
  if (base_ == nullptr) return false;
  const char* p = static_cast<const char*>(RealAddress(ptr));
  return p >= base_ && p < base_ + capacity_;
}

bool SimGPUMemory::ProtectedFromHost() const {
  MutexLock lock(&mu_);
  return strict_ && base_ != nullptr;
}

}  // namespace minitf::se
