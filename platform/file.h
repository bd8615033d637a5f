// Reading a whole input file (a graph, a .npy feed) safely: the path must
// name a regular file (not a directory, FIFO, device or socket, which could
// block or never end), no larger than the caller's bound, and it is opened
// without blocking. Errors name the file and, for size, both sizes. And
// writing a file as a careful daemon does, in a directory others may write
// in too (the coordinator's, shared with its jobs).
//
//   absl::StatusOr<std::string> bytes =
//       ReadRegularFile(path, kMaxGraphFileBytes, "a GraphDef");
//   MINITF_RETURN_IF_ERROR(WriteFileAtomically(dir + "/job.config.json", json));
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

// How ReadRegularFile treats a symbolic link as the path's last component.
enum class Links { kFollow, kRefuse };

// ReadRegularFile, refusing (`links` kRefuse) a path whose last component
// is a symbolic link: PermissionDenied naming the path. For files in a
// directory other users may write in, where a link could point anywhere.
absl::StatusOr<std::string> ReadRegularFile(const std::string& path, int64_t max_bytes,
                                            absl::string_view what, Links links);

// Replaces `path` with `content` so that a reader sees the old file or the
// new one, whole, and nothing planted in path's directory redirects the
// write. The content goes to a new file of a random name beside `path`
// ("<name>.tmp.XXXXXX", made by mkstemp: created exclusively, so never a
// file or link that was there), mode 0644, written and fsync'ed, then
// renamed over `path` (rename replaces the directory entry and follows no
// link, so a link put in place of `path` meanwhile is itself replaced).
// Refused before anything is written: a `path` that is a symbolic link
// (PermissionDenied) or exists and is not a regular file (InvalidArgument),
// naming it. The OS's failures are Unavailable, naming the file and the
// OS's reason (a writer on a schedule tries again); the temporary is then
// gone and `path` is as it was.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view content);

// What a stat(2) `mode` names, for errors about a path that is no regular
// file: "a directory", "a FIFO", "a character device", "a block device", "a
// socket", or "not a regular file".
const char* FileTypeName(mode_t mode);

}  // namespace minitf

#endif  // MINITF_PLATFORM_FILE_H_
