// Reading a whole input file (a graph, a .npy feed) safely: the path must
// name a regular file (not a directory, FIFO, device or socket, which could
// block or never end), no larger than the caller's bound, and it is opened
// without blocking. Errors name the file and, for size, both sizes.
//
//   absl::StatusOr<std::string> bytes =
//       ReadRegularFile(path, kMaxGraphFileBytes, "a GraphDef");
#ifndef MINITF_PLATFORM_FILE_H_
#define MINITF_PLATFORM_FILE_H_

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace minitf {

// The contents of `path`. NotFound when it does not exist; PermissionDenied
// when it cannot be read; InvalidArgument when it is not a regular file, or
// is larger than `max_bytes` (`what` says what the file was to hold:
// "a GraphDef"); DataLoss on a read error.
absl::StatusOr<std::string> ReadRegularFile(const std::string& path, int64_t max_bytes,
                                            absl::string_view what);

// What a stat(2) `mode` names, for errors about a path that is no regular
// file: "a directory", "a FIFO", "a character device", "a block device", "a
// socket", or "not a regular file".
const char* FileTypeName(mode_t mode);

}  // namespace minitf

#endif  // MINITF_PLATFORM_FILE_H_
