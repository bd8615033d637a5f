// CheckedCopy: the synchronous copy of the Host and SimGPU executors, whose
// device memory the host can address: checks the buffers, then copies.
//
//   MINITF_RETURN_IF_ERROR(CheckedCopy("SimGPU:0 host-to-device copy",
//                                      dst.opaque(), dst.size(), src, n, n));
#ifndef MINITF_STREAM_HOST_CHECKED_COPY_H_
#define MINITF_STREAM_HOST_CHECKED_COPY_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace minitf::se {

// Copies `size` bytes from `src` to `dst` (which may overlap). InvalidArgument,
// naming `what`, when a pointer is null or `size` exceeds a buffer's size.
absl::Status CheckedCopy(absl::string_view what, void* dst, uint64_t dst_size, const void* src,
                         uint64_t src_size, uint64_t size);

}  // namespace minitf::se

#endif  // MINITF_STREAM_HOST_CHECKED_COPY_H_
