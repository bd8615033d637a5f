// Device memory protection: what makes SimGPU's device memory as unreachable
// from host code as cudaMalloc memory is, on every machine. A host thread
// that reads or writes through a device pointer faults (SIGSEGV), so a
// kernel that dereferences a device pointer on the host, or a HostMemory
// argument left in device memory, fails on SimGPU in CI exactly where it
// would fail on a CUDA GPU.
//
// Two mechanisms, both per thread, so device memory is reachable only from
// the device's own threads:
//   - Tagged addresses (every machine). A device pointer SimGPU hands out is
//     its real address with bit 53 set (platform/device_address.h): a
//     non-canonical address on x86-64 and one outside every user mapping on
//     AArch64, so a dereference faults. A thread with access gets the real address from
//     DeviceAddressForThisThread, which Tensor::raw_data() and the SimGPU
//     copies call: a kernel body sees host-addressable tensors, host code
//     sees tagged ones.
//   - Memory protection keys, where the CPU and kernel have them: the real
//     addresses are tagged with a key that only threads with access may use,
//     so a real address that leaks out of a kernel faults too.
// The threads with access:
//   - a stream's worker, while it runs a kernel, a copy or a memset (not
//     while it runs a host callback);
//   - the device's intra-op threads, which the bodies of SimGPU kernels
//     split their loops over (they are the simulated GPU's cores);
//   - a synchronous copy, and SimGPU's own bookkeeping (shape inference of
//     a kernel's inputs), for their scope only.
//
//   void* device = TagAsDeviceAddress(real);   // what Allocate returns
//   {
//     ScopedDeviceMemoryAccess access;         // this thread, this scope
//     std::memcpy(host, DeviceAddressForThisThread(device), n);
//   }
#ifndef MINITF_STREAM_DEVICE_MEMORY_PROTECTION_H_
#define MINITF_STREAM_DEVICE_MEMORY_PROTECTION_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "platform/device_address.h"

namespace minitf::se {

namespace internal {
// How many grants of access the calling thread holds (scopes, plus one for
// a thread that is part of a device).
extern thread_local int device_memory_access_depth;
}  // namespace internal

// The address through which the calling thread may touch `p`: the real
// address when `p` is a tagged device address and the thread has access;
// else `p` itself (host memory, or a device address host code must not
// reach: it stays tagged, and a dereference faults).
inline void* DeviceAddressForThisThread(const void* p) {
  if (!IsTaggedDeviceAddress(p) || internal::device_memory_access_depth == 0) {
    return const_cast<void*>(p);
  }
  return RealAddress(p);
}

// Whether the calling thread may touch device memory now.
inline bool ThisThreadHasDeviceMemoryAccess() {
  return internal::device_memory_access_depth > 0;
}

// Whether this CPU and kernel give memory protection keys (a key was
// allocated, once, on the first call).
bool ProtectionKeysAvailable();

// Tags the real range [base, base + size) with the device-memory protection
// key. FailedPrecondition when there are no keys, Internal when the kernel
// refuses (naming errno).
absl::Status ProtectWithKey(void* base, size_t size);

// Gives the calling thread access to device memory for the rest of its life:
// for threads that are part of a device (its intra-op pool).
void AllowDeviceMemoryAccessOnThisThread();

// Gives the calling thread access for the scope's lifetime, then restores
// what it had (scopes nest).
class ScopedDeviceMemoryAccess {
 public:
  ScopedDeviceMemoryAccess();
  ~ScopedDeviceMemoryAccess();
  ScopedDeviceMemoryAccess(const ScopedDeviceMemoryAccess&) = delete;
  ScopedDeviceMemoryAccess& operator=(const ScopedDeviceMemoryAccess&) = delete;

 private:
  int saved_key_rights_ = -1;  // -1: no key rights to restore.
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_DEVICE_MEMORY_PROTECTION_H_
