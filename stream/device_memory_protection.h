// Device memory protection: what makes SimGPU's device memory as unreachable
// from host code as cudaMalloc memory is. A host thread that reads or writes
// a device address faults (SIGSEGV), so a kernel that dereferences a device
// pointer on the host, or a HostMemory argument left in device memory, fails
// on SimGPU in CI exactly where it would fail on a CUDA GPU.
//
// The mechanism is Linux's memory protection keys (pkeys): device memory is
// tagged with one process-wide key, and a thread may touch it only while its
// own rights register (PKRU) allows that key. Access rights are per thread,
// so device memory keeps its addresses and only the device's own threads get
// in:
//   - a stream's worker, while it runs a kernel, a copy or a memset (not
//     while it runs a host callback);
//   - the device's intra-op threads, which the bodies of SimGPU kernels
//     split their loops over (they are the simulated GPU's cores);
//   - a synchronous copy, for the copy only.
//
//   if (DeviceMemoryProtectionAvailable()) ProtectAsDeviceMemory(base, size);
//   {
//     ScopedDeviceMemoryAccess access;   // this thread, this scope
//     std::memcpy(host, device, n);
//   }
//
// Where the CPU or kernel has no protection keys, nothing is protected (the
// SimGPU platform logs it once); tests that need strictness skip then.
#ifndef MINITF_STREAM_DEVICE_MEMORY_PROTECTION_H_
#define MINITF_STREAM_DEVICE_MEMORY_PROTECTION_H_

#include <cstddef>

#include "absl/status/status.h"

namespace minitf::se {

// Whether device memory can be protected in this process (a protection key
// was allocated, once, on the first call).
bool DeviceMemoryProtectionAvailable();

// Tags [base, base + size) as device memory, readable and writable only by
// threads with access. FailedPrecondition when protection is unavailable,
// Internal when the kernel refuses (naming errno).
absl::Status ProtectAsDeviceMemory(void* base, size_t size);

// Gives the calling thread access to device memory for the rest of its life:
// for threads that are part of a device (its intra-op pool).
void AllowDeviceMemoryAccessOnThisThread();

// Gives the calling thread access for the scope's lifetime, then restores
// what it had (scopes nest). A no-op where protection is unavailable.
class ScopedDeviceMemoryAccess {
 public:
  ScopedDeviceMemoryAccess();
  ~ScopedDeviceMemoryAccess();
  ScopedDeviceMemoryAccess(const ScopedDeviceMemoryAccess&) = delete;
  ScopedDeviceMemoryAccess& operator=(const ScopedDeviceMemoryAccess&) = delete;

 private:
  int saved_rights_ = -1;  // -1: nothing to restore.
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_DEVICE_MEMORY_PROTECTION_H_
