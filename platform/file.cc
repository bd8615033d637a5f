#include "platform/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace minitf {
namespace {

// Closes a file descriptor when it goes out of scope.
class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() {
    if (fd_ >= 0) close(fd_);
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

const char* FileTypeName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

absl::StatusOr<std::string> ReadRegularFile(const std::string& path, int64_t max_bytes,
                                            absl::string_view what) {
  return ReadRegularFile(path, max_bytes, what, Links::kFollow);
}

absl::StatusOr<std::string> ReadRegularFile(const std::string& path, int64_t max_bytes,
                                            absl::string_view what, Links links) {
  // O_NONBLOCK: opening a FIFO with no writer would wait for one.
  const int no_follow = links == Links::kRefuse ? O_NOFOLLOW : 0;
  const ScopedFd fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | no_follow));
  if (fd.get() < 0) {
    const int error = errno;
    if (error == ELOOP && links == Links::kRefuse) {
      return absl::PermissionDeniedError(
          absl::StrCat("'", path, "' is a symbolic link; refusing to read ", what, " through it"));
    }
    const std::string message = absl::StrCat("cannot open '", path, "': ", std::strerror(error));
    if (error == ENOENT || error == ENOTDIR) return absl::NotFoundError(message);
    if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
    return absl::InvalidArgumentError(message);
  }
  struct stat info;
  if (fstat(fd.get(), &info) != 0) {
    return absl::DataLossError(absl::StrCat("cannot stat '", path, "': ", std::strerror(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is ", FileTypeName(info.st_mode),
                                                   ", not a regular file holding ", what));
  }
  if (info.st_size > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is ", info.st_size,
                                                   " bytes, more than the ", max_bytes,
                                                   " that ", what, " may have"));
  }
  std::string contents(static_cast<size_t>(info.st_size), '\0');
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = read(fd.get(), contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::DataLossError(
          absl::StrCat("error reading '", path, "': ", std::strerror(errno)));
    }
    if (n == 0) break;  // The file shrank while it was read.
    done += static_cast<size_t>(n);
  }
  contents.resize(done);
  return contents;
}

namespace {

// Writes all of `content`, retrying short writes and EINTR; 0 or errno.
int WriteAll(int fd, absl::string_view content) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, absl::string_view content) {
  struct stat existing;
  if (lstat(path.c_str(), &existing) == 0) {
    if (S_ISLNK(existing.st_mode)) {
      return absl::PermissionDeniedError(
          absl::StrCat("'", path, "' is a symbolic link; refusing to write through it"));
    }
    if (!S_ISREG(existing.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat("'", path, "' is ",
                                                     FileTypeName(existing.st_mode),
                                                     ", not a regular file to replace"));
    }
  }
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("cannot create a temporary file beside '", path,
                                               "': ", std::strerror(errno)));
  }
  int error = WriteAll(fd, content);
  absl::string_view step = "write";
  // mkstemp makes the file 0600; readers of other users (a job reading
  // its coordinator's config) need 0644.
  if (error == 0 && fchmod(fd, 0644) != 0) {
    error = errno;
    step = "set the mode of";
  }
  if (error == 0 && fsync(fd) != 0) {
    error = errno;
    step = "sync";
  }
  if (close(fd) != 0 && error == 0) {
    error = errno;
    step = "write";
  }
  if (error == 0 && rename(tmp.c_str(), path.c_str()) != 0) {
    error = errno;
    unlink(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("cannot rename '", tmp, "' over '", path,
                                               "': ", std::strerror(error)));
  }
  if (error != 0) {
    unlink(tmp.c_str());
    return absl::UnavailableError(
        absl::StrCat("cannot ", step, " '", tmp, "' for '", path, "': ", std::strerror(error)));
  }
  return absl::OkStatus();
}

}  // namespace minitf
