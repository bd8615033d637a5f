#include "stream/device_memory_protection.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "platform/logging.h"

namespace minitf::se {

namespace internal {
thread_local int device_memory_access_depth = 0;
}  // namespace internal

namespace {

// The process's device-memory key, or -1 when there is none. Allocated with
// access disabled for the allocating thread; threads created later inherit
// their creator's rights, and threads that exist already have every key but
// 0 disabled (the kernel's initial rights).
int DeviceKey() {
  static const int key = [] {
    const int k = pkey_alloc(0, PKEY_DISABLE_ACCESS);
    if (k < 0) {
      VLOG(1, "no memory protection keys ({}): SimGPU device memory is protected by tagged "
              "addresses only", std::strerror(errno));
    }
    return k;
  }();
  return key;
}

}  // namespace

bool ProtectionKeysAvailable() { return DeviceKey() >= 0; }

absl::Status ProtectWithKey(void* base, size_t size) {
  const int key = DeviceKey();
  if (key < 0) return absl::FailedPreconditionError("there are no memory protection keys");
  if (pkey_mprotect(base, size, PROT_READ | PROT_WRITE, key) != 0) {
    return absl::InternalError(absl::StrCat("pkey_mprotect of ", size,
                                            " bytes of device memory failed: ",
                                            std::strerror(errno)));
  }
  return absl::OkStatus();
}

void AllowDeviceMemoryAccessOnThisThread() {
  ++internal::device_memory_access_depth;
  const int key = DeviceKey();
  if (key >= 0) pkey_set(key, 0);
}

ScopedDeviceMemoryAccess::ScopedDeviceMemoryAccess() {
  ++internal::device_memory_access_depth;
  const int key = DeviceKey();
  if (key < 0) return;
  saved_key_rights_ = pkey_get(key);
  if (saved_key_rights_ != 0) pkey_set(key, 0);
}

ScopedDeviceMemoryAccess::~ScopedDeviceMemoryAccess() {
  --internal::device_memory_access_depth;
  if (saved_key_rights_ > 0) pkey_set(DeviceKey(), static_cast<unsigned>(saved_key_rights_));
}

}  // namespace minitf::se
