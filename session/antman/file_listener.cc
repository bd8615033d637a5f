#include "session/antman/file_listener.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "platform/file.h"
#include "platform/logging.h"

namespace minitf {
namespace {

// Close-after-write and moved-to carry new content; delete and moved-from
// take the file away. (IN_MODIFY and IN_CREATE are left out: a file is read
// once its writer closes it, not while it is being written.) IN_MOVE_SELF:
// the directory moved, so the path no longer leads to it.
constexpr uint32_t kWatchMask =
    IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_MOVE_SELF | IN_ONLYDIR;

// What polling compares to decide whether to read a file again.
struct FileStamp {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  int64_t mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

FileStamp StatFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return FileStamp{};
  return FileStamp{true, st.st_dev, st.st_ino, st.st_size,
                   int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec};
}

absl::Status NotRegularFile(const std::string& path, mode_t mode) {
  return absl::FailedPreconditionError(absl::StrCat("FileListener: '", path,
                                                    "' is not a regular file (",
                                                    FileTypeName(mode), ")"));
}

absl::Status TooLarge(const std::string& path, int64_t max_bytes) {
  return absl::ResourceExhaustedError(absl::StrCat("FileListener: '", path,
                                                   "' is larger than the limit of ", max_bytes,
                                                   " bytes for a watched file"));
}

// Reads `path`, which must be a regular file of at most `max_bytes` bytes;
// nullopt when there is no such file. Never blocks: what is no regular file
// (a FIFO, /dev/zero) is refused by stat before it is opened, and opened
// non-blocking in case one took the file's place in between. Reads at most
// max_bytes + 1 bytes, so a file that grows while read costs no more.
absl::StatusOr<std::optional<std::string>> ReadRegularFile(const std::string& path,
                                                           int64_t max_bytes) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
    return absl::ErrnoToStatus(errno, absl::StrCat("FileListener cannot stat '", path, "'"));
  }
  if (!S_ISREG(st.st_mode)) return NotRegularFile(path, st.st_mode);
  if (st.st_size > max_bytes) return TooLarge(path, max_bytes);

  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
    return absl::ErrnoToStatus(errno, absl::StrCat("FileListener cannot open '", path, "'"));
  }
  absl::Status status;
  std::string content;
  if (fstat(fd, &st) != 0) {
    status = absl::ErrnoToStatus(errno, absl::StrCat("FileListener cannot stat '", path, "'"));
  } else if (!S_ISREG(st.st_mode)) {
    status = NotRegularFile(path, st.st_mode);
  }
  const size_t cap = static_cast<size_t>(max_bytes) + 1;
  char buffer[16384];
  while (status.ok() && content.size() < cap) {
    const ssize_t n = read(fd, buffer, std::min(sizeof(buffer), cap - content.size()));
    if (n == 0) break;
    if (n > 0) {
      content.append(buffer, static_cast<size_t>(n));
    } else if (errno != EINTR) {
      status = absl::ErrnoToStatus(errno, absl::StrCat("FileListener cannot read '", path, "'"));
    }
  }
  close(fd);
  if (!status.ok()) return status;
  if (content.size() > static_cast<size_t>(max_bytes)) return TooLarge(path, max_bytes);
  return std::optional<std::string>(std::move(content));
}

// Splits `path` into its directory and last component; false when it names
// no file (empty, or ends with '/').
bool SplitPath(const std::string& path, std::string* dir, std::string* name) {
  const std::filesystem::path split(path);
  *name = split.filename().string();
  *dir = split.has_parent_path() ? split.parent_path().string() : ".";
  return !name->empty();
}

// Whether `error` (errno) says that no directory is at the path: one may
// appear later.
bool IsMissing(int error) { return error == ENOENT || error == ENOTDIR; }

absl::Status DirectoryError(int error, const std::string& dir, const std::string& path) {
  return absl::ErrnoToStatus(
      error, absl::StrCat("FileListener cannot watch directory '", dir, "' of '", path, "'"));
}

}  // namespace

struct FileListener::Registration {
  // Constant after Register: read without mu_.
  std::string path;
  std::string dir;    // where the watch goes (again, after it is lost)
  std::string name;   // the last component, as inotify events name it
  Callback callback;  // run without mu_

  // Guarded by the listener's mu_.
  int wd = -1;                // inotify mode: its directory's watch; -1 while it is missing
  bool dirty = true;          // to be read in the next pass (a new registration is)
  bool deleted_hint = false;  // an event took the file away since the last pass
  bool removed = false;       // unregistered while its callback was running
  FileStamp stamp;            // polling mode: as of the last pass
  std::optional<std::string> last_content;  // last delivered; nullopt: none, or deleted since
  // The reason of the last kUnreadable delivered, until something readable
  // or nothing is at the path: the same reason again is no news.
  std::string last_unreadable;
};

struct FileListener::Check {
  int64_t id;
  std::string path;
  bool force_read;
  bool deleted_hint;
  FileStamp stamp;  // the registration's, then (polling) the new one
  bool read = false;
  absl::StatusOr<std::optional<std::string>> content = std::optional<std::string>();
};

FileListener* FileListener::Global() {
  static FileListener* const listener = new FileListener();
  return listener;
}

FileListener::FileListener(Options options) : options_(options) {
  if (options_.use_inotify) {
    inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (inotify_fd_ >= 0) wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    using_inotify_ = inotify_fd_ >= 0 && wake_fd_ >= 0;
    if (!using_inotify_) {
      static std::atomic<bool> warned{false};
      if (!warned.exchange(true)) {
        LOG(WARNING, "FileListener: inotify unavailable ({}); polling every {}",
            std::strerror(errno), absl::FormatDuration(options_.poll_interval));
      }
      if (inotify_fd_ >= 0) close(inotify_fd_);
      inotify_fd_ = -1;
    }
  }
  thread_ = std::thread(&FileListener::Run, this);
}

FileListener::~FileListener() {
  MINITF_CHECK(std::this_thread::get_id() != thread_.get_id());
  {
    MutexLock lock(&mu_);
    shutdown_ = true;
    Wake();
  }
  thread_.join();
  if (inotify_fd_ >= 0) close(inotify_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

absl::StatusOr<int64_t> FileListener::Register(const std::string& path, Callback callback) {
  auto reg = std::make_unique<Registration>();
  if (!SplitPath(path, &reg->dir, &reg->name)) {
    return absl::InvalidArgumentError(absl::StrCat("FileListener: '", path, "' names no file"));
  }
  if (!callback) {
    return absl::InvalidArgumentError(absl::StrCat("FileListener: no callback for '", path, "'"));
  }
  reg->path = path;
  reg->callback = std::move(callback);
  // A directory not there yet (or something else in its place) is waited
  // for; any other reason not to watch it is the caller's to hear.
  if (!using_inotify_) {
    struct stat st;
    if (stat(reg->dir.c_str(), &st) != 0 && !IsMissing(errno)) {
      return DirectoryError(errno, reg->dir, path);
    }
  }
  MutexLock lock(&mu_);
  if (using_inotify_) {
    reg->wd = inotify_add_watch(inotify_fd_, reg->dir.c_str(), kWatchMask);
    if (reg->wd >= 0) {
      ++watch_refs_[reg->wd];
    } else if (!IsMissing(errno)) {
      return DirectoryError(errno, reg->dir, path);
    }
  }
  const int64_t id = next_id_++;
  registrations_.emplace(id, std::move(reg));
  Wake();
  return id;
}

void FileListener::Unregister(int64_t id) {
  MutexLock lock(&mu_);
  auto it = registrations_.find(id);
  if (it == registrations_.end()) return;
  Registration* reg = it->second.get();
  if (!reg->removed) {
    reg->removed = true;
    ReleaseWatch(reg);
  }
  if (running_id_ != id) {
    registrations_.erase(it);
    return;
  }
  // Its callback is running. From that callback itself: RunCallback destroys
  // the registration when it returns. Elsewhere: wait for that.
  if (std::this_thread::get_id() == thread_.get_id()) return;
  while (running_id_ == id) callback_done_.Wait(&mu_);
}

void FileListener::ReleaseWatch(Registration* reg) {
  if (reg->wd < 0) return;
  auto it = watch_refs_.find(reg->wd);
  if (it != watch_refs_.end() && --it->second == 0) {
    inotify_rm_watch(inotify_fd_, reg->wd);
    watch_refs_.erase(it);
  }
  reg->wd = -1;
}

void FileListener::Wake() {
  if (using_inotify_) {
    const uint64_t one = 1;
    // Cannot fail short of the counter's 2^64 limit; a full counter wakes anyway.
    [[maybe_unused]] const ssize_t n = write(wake_fd_, &one, sizeof(one));
  } else {
    wake_requested_ = true;
    wake_cv_.SignalAll();
  }
}

void FileListener::Run() {
  bool watch_lost = false;
  for (;;) {
    using_inotify_ ? WaitForInotify(watch_lost) : WaitForTick();
    std::vector<Check> checks;
    {
      MutexLock lock(&mu_);
      if (shutdown_) return;
      if (using_inotify_) watch_lost = RewatchLostDirectories();
      checks = TakeChecks();
    }
    // File I/O without the lock: Register and Unregister do not wait for it.
    for (Check& check : checks) {
      if (!using_inotify_) {
        const FileStamp now = StatFile(check.path);
        if (!check.force_read && now == check.stamp) continue;
        check.stamp = now;
      }
      check.read = true;
      check.content = ReadRegularFile(check.path, options_.max_file_size);
    }
    Deliver(checks);
  }
}

void FileListener::WaitForTick() {
  MutexLock lock(&mu_);
  if (!shutdown_ && !wake_requested_) wake_cv_.WaitWithTimeout(&mu_, options_.poll_interval);
  wake_requested_ = false;
}

void FileListener::WaitForInotify(bool watch_lost) {
  const int timeout_ms =
      watch_lost ? static_cast<int>(absl::ToInt64Milliseconds(options_.poll_interval)) : -1;
  pollfd fds[2] = {{inotify_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  if (poll(fds, 2, timeout_ms) <= 0) return;  // timeout, or EINTR
  if (fds[1].revents & POLLIN) {
    uint64_t count;
    [[maybe_unused]] const ssize_t n = read(wake_fd_, &count, sizeof(count));
  }
  if (!(fds[0].revents & POLLIN)) return;
  alignas(inotify_event) char buffer[8192];
  for (;;) {
    const ssize_t n = read(inotify_fd_, buffer, sizeof(buffer));
    if (n <= 0) return;  // EAGAIN: drained
    MutexLock lock(&mu_);
    for (ssize_t offset = 0; offset < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + offset);
      ApplyEvent(*event);
      offset += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
}

void FileListener::ApplyEvent(const inotify_event& event) {
  if (event.mask & IN_Q_OVERFLOW) {
    // Events were dropped: look at every file again.
    for (auto& [id, reg] : registrations_) reg->dirty = true;
    return;
  }
  if (event.mask & IN_IGNORED) return LoseWatch(event.wd, /*still_installed=*/false);
  if (event.mask & IN_MOVE_SELF) return LoseWatch(event.wd, /*still_installed=*/true);
  if (event.len == 0) return;
  const std::string name(event.name);  // NUL-padded to event.len
  const bool gone = (event.mask & (IN_DELETE | IN_MOVED_FROM)) != 0;
  for (auto& [id, reg] : registrations_) {
    if (reg->wd != event.wd || reg->name != name) continue;
    reg->dirty = true;
    reg->deleted_hint |= gone;
  }
}

void FileListener::LoseWatch(int wd, bool still_installed) {
  auto it = watch_refs_.find(wd);
  if (it == watch_refs_.end()) return;  // released by Unregister already
  watch_refs_.erase(it);
  if (still_installed) inotify_rm_watch(inotify_fd_, wd);
  for (auto& [id, reg] : registrations_) {
    if (reg->wd != wd) continue;
    reg->wd = -1;
    reg->dirty = true;
  }
}

bool FileListener::RewatchLostDirectories() {
  bool still_lost = false;
  for (auto& [id, reg] : registrations_) {
    if (reg->wd >= 0 || reg->removed) continue;
    const int wd = inotify_add_watch(inotify_fd_, reg->dir.c_str(), kWatchMask);
    if (wd < 0) {
      still_lost = true;  // not back yet
      continue;
    }
    ++watch_refs_[wd];
    reg->wd = wd;
    reg->dirty = true;  // it may have been written before the watch
  }
  return still_lost;
}

std::vector<FileListener::Check> FileListener::TakeChecks() {
  std::vector<Check> checks;
  for (auto& [id, reg] : registrations_) {
    if (reg->removed || (using_inotify_ && !reg->dirty)) continue;
    checks.push_back(Check{id, reg->path, reg->dirty, reg->deleted_hint, reg->stamp});
    reg->dirty = false;
    reg->deleted_hint = false;
  }
  return checks;
}

void FileListener::Deliver(std::vector<Check>& checks) {
  MutexLock lock(&mu_);
  for (Check& check : checks) {
    if (shutdown_) return;
    auto it = registrations_.find(check.id);
    if (it == registrations_.end() || it->second->removed || !check.read) continue;
    Registration* reg = it->second.get();
    reg->stamp = check.stamp;
    // What is at the path now: no file (nullopt), or content, or an error.
    const bool gone = check.content.ok() && !check.content->has_value();
    std::vector<FileEvent> events;
    if (reg->last_content.has_value() && (check.deleted_hint || gone)) {
      events.push_back(FileEvent{FileEvent::Kind::kDeleted, reg->path, "", absl::OkStatus()});
      reg->last_content.reset();
    }
    if (!check.content.ok()) {
      const std::string reason = check.content.status().ToString();
      if (reason != reg->last_unreadable) {
        reg->last_unreadable = reason;
        events.push_back(
            FileEvent{FileEvent::Kind::kUnreadable, reg->path, "", check.content.status()});
      }
    } else {
      reg->last_unreadable.clear();
      if (!gone && *check.content != reg->last_content) {
        reg->last_content = *check.content;
        events.push_back(FileEvent{FileEvent::Kind::kChanged, reg->path,
                                   std::move(**check.content), absl::OkStatus()});
      }
    }
    for (const FileEvent& event : events) {
      if (shutdown_ || !RunCallback(check.id, reg, event)) break;
    }
  }
}

bool FileListener::RunCallback(int64_t id, Registration* reg, const FileEvent& event) {
  running_id_ = id;
  mu_.Unlock();
  reg->callback(event);
  mu_.Lock();
  running_id_ = 0;
  callback_done_.SignalAll();
  if (!reg->removed) return true;
  registrations_.erase(id);
  return false;
}

}  // namespace minitf
