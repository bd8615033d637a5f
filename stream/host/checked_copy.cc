#include "stream/host/checked_copy.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "stream/device_memory_protection.h"

namespace minitf::se {

absl::Status CheckedCopy(absl::string_view what, void* dst, uint64_t dst_size, const void* src,
                         uint64_t src_size, uint64_t size) {
  if (size == 0) return absl::OkStatus();
  if (dst == nullptr || src == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " of ", size, " bytes with a null source or destination"));
  }
  if (size > dst_size) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " of ", size, " bytes into a ", dst_size, "-byte buffer"));
  }
  if (size > src_size) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " of ", size, " bytes from a ", src_size, "-byte buffer"));
  }
  // Device addresses become reachable here only on a thread with access.
  std::memmove(DeviceAddressForThisThread(dst), DeviceAddressForThisThread(src), size);
  return absl::OkStatus();
}

}  // namespace minitf::se
