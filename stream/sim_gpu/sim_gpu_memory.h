// SimGPUMemory: the device memory of one SimGPU device.
//
// The model. The device's memory is ONE reservation of `capacity` bytes of
// address space, made on the first allocation with
// mmap(PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE), so it
// costs no RAM until touched (a 16 GiB device in a 2 GiB test process is
// fine). The reservation is cut into ranges at offsets that are multiples of
// kAlignment (256 bytes, as cudaMalloc guarantees). Free ranges are kept in
// an address-ordered map and never adjoin (frees coalesce with their
// neighbours); Allocate takes the first free range that fits (first fit),
// splitting off the rest. Capacity is strict: a request that no free range
// can hold gets nullptr, never an abort and never memory outside the
// reservation. Deallocate gives the whole pages of the freed range back to
// the OS (madvise MADV_DONTNEED), so RAM use follows what is allocated.
//
// Strict (the default): Allocate hands out tagged device addresses, and
// the reservation is keyed where there are memory protection keys
// (device_memory_protection.h), so host code that dereferences a device
// pointer faults, as with cudaMalloc memory, on every machine; only the
// device's streams and copies reach it. Deallocate and Contains take tagged
// or real addresses.
//
//   SimGPUMemory memory(64 << 20, "SimGPU:0");
//   void* p = memory.Allocate(1000);     // 1024 bytes of capacity used
//   memory.Deallocate(p);
//
// Host-backed: what the devices of a process allocate is host memory, so
// it is also taken from the process's HostMemoryBudget (platform/
// host_memory.h), with the host tensors' pool; past it Allocate gives
// nullptr, and a device larger than the budget is logged when made.
//
// Shared (a SharedSimGPUDevice given): the capacity is the shared device's,
// so an allocation also needs room among every attached process's bytes;
// this process's ranges stay in its own reservation.
//
// Thread-safe: one mutex guards the ranges.
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_MEMORY_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_MEMORY_H_

#include <cstdint>
#include <string>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "platform/mutex.h"

namespace minitf::se {

class SharedSimGPUDevice;

class SimGPUMemory {
 public:
  static constexpr uint64_t kAlignment = 256;

  // `capacity` is rounded down to kAlignment. `device_name` names the device
  // in logs. `strict`: protect the memory from host code (see above).
  // `shared` (not owned; outlives this; may be null): the shared device
  // whose capacity the allocations also take.
  SimGPUMemory(int64_t capacity, std::string device_name, bool strict = true,
               SharedSimGPUDevice* shared = nullptr);
  ~SimGPUMemory();
  SimGPUMemory(const SimGPUMemory&) = delete;
  SimGPUMemory& operator=(const SimGPUMemory&) = delete;

  // `size` bytes (rounded up to kAlignment), 256-byte aligned; nullptr when
  // no free range can hold them, for size 0, or when the reservation failed.
  void* Allocate(uint64_t size);
  // REQUIRES: `ptr` came from Allocate and was not freed since. Null is a
  // no-op; an unknown pointer is logged and ignored.
  void Deallocate(void* ptr);

  // Capacity taken by live allocations (their rounded sizes).
  int64_t BytesInUse() const;
  // Capacity taken on the device by every process: BytesInUse() unless
  // shared.
  int64_t DeviceBytesInUse() const;
  int64_t capacity() const { return static_cast<int64_t>(capacity_); }
  // Whether `ptr` lies inside the reservation.
  bool Contains(const void* ptr) const;
  // Whether host code faults on this memory: strict, and reserved (false
  // before the first allocation reserves the memory).
  bool ProtectedFromHost() const;

 private:
  // Makes the reservation if not yet made; false if mmap failed.
  bool EnsureReserved() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Returns the whole pages inside [begin, end) (offsets) to the OS.
  void ReleasePages(uint64_t begin, uint64_t end) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const uint64_t capacity_;
  const uint64_t mapping_size_;  // capacity_ rounded up to whole pages.
  const uint64_t page_size_;
  const std::string device_name_;
  const bool strict_;
  SharedSimGPUDevice* const shared_;

  mutable Mutex mu_;
  char* base_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool reservation_failed_ ABSL_GUARDED_BY(mu_) = false;
  // Free ranges, offset -> size; disjoint, never adjacent.
  absl::btree_map<uint64_t, uint64_t> free_ ABSL_GUARDED_BY(mu_);
  // Live allocations, offset -> rounded size.
  absl::flat_hash_map<uint64_t, uint64_t> allocated_ ABSL_GUARDED_BY(mu_);
  uint64_t bytes_in_use_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_MEMORY_H_
