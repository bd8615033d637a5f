// FileListener: watches files and calls back with their whole content when it
// changes. AntMan's control plane follows, this way, the JSON config file an
// external scheduler rewrites while a training job runs.
//
//   FileListener* listener = FileListener::Global();
//   MINITF_ASSIGN_OR_RETURN(
//       int64_t id, listener->Register("/run/job/limits.json", [](const FileEvent& e) {
//         if (e.kind == FileEvent::Kind::kChanged) ApplyLimits(e.content);
//       }));
//   ...
//   listener->Unregister(id);  // after this, the callback is not running and never runs again
//
// One thread per listener serves every registration. With inotify it watches
// each file's directory (one watch per directory, shared by its files), so it
// sees a file replaced by rename (write a temporary file, rename it over),
// rewritten in place (read at the writer's close, not at every write),
// deleted, and created again; while the directory is missing (not made yet,
// or removed or moved later) it tries again every poll_interval until one
// is at the path. Without inotify (Options::use_inotify false, or
// inotify_init1 failing) it stats every file each poll_interval and reads
// those whose (inode, size, mtime) changed.
//
// What a registration receives, in order, on the listener thread:
//   - kChanged with the content when the file exists at Register;
//   - kChanged when the content differs from the last content delivered to
//     it: an identical rewrite is not delivered again;
//   - kDeleted once when a file it has seen goes away; the remembered content
//     is then forgotten, so a file created again is delivered even when its
//     content is unchanged;
//   - kUnreadable, with the reason naming the path, for each change that
//     leaves something at the path the listener will not or cannot read:
//     no regular file (a FIFO, a device such as /dev/zero, a directory; a
//     symlink counts as what it leads to), more than Options::max_file_size
//     bytes, no permission. The content last delivered is still remembered.
//     The same reason is not reported twice in a row: a FIFO or a link to
//     /dev/zero left in place is reported once.
// Reading never blocks and is bounded: a file that is no regular file is
// not read at all, and a regular one is read up to max_file_size + 1 bytes,
// whatever size it claims.
//
// Limits: a writer rewriting a file in place while the listener reads it may
// be seen mid-write (its final content follows at its close); writers that
// need atomic updates rename a complete file over the old one. Polling sees
// only the states at its ticks. The path is watched through the directory
// it names: re-pointing a symlink in another directory is not seen.
#ifndef MINITF_SESSION_ANTMAN_FILE_LISTENER_H_
#define MINITF_SESSION_ANTMAN_FILE_LISTENER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "platform/mutex.h"

struct inotify_event;

namespace minitf {

struct FileEvent {
  enum class Kind { kChanged, kDeleted, kUnreadable };
  Kind kind;
  std::string path;     // as given to Register
  std::string content;  // the whole file for kChanged; empty otherwise
  absl::Status error;   // kUnreadable: why, naming the path; OK otherwise
};

// Thread-safe. Callbacks run on the listener's thread, one at a time, with no
// lock of the listener held: they may call Register and Unregister.
class FileListener {
 public:
  using Callback = std::function<void(const FileEvent&)>;

  struct Options {
    // false: polling only (tests, and systems without inotify).
    bool use_inotify = true;
    // Polling mode: how often every file is stat'ed. inotify mode: how often
    // a missing directory is looked for again.
    absl::Duration poll_interval = absl::Milliseconds(100);
    // Larger files are not read (kUnreadable): what a path that leads to
    // something huge costs the job stays bounded.
    int64_t max_file_size = int64_t{1} << 20;
  };

  // The process's default listener, made on first use and never destroyed.
  static FileListener* Global();

  // Start the listener's thread.
  FileListener() : FileListener(Options()) {}
  explicit FileListener(Options options);
  // Stops the thread, waiting for a running callback to return; no callback
  // runs after it returns. REQUIRES: not called from one of its callbacks.
  ~FileListener();

  FileListener(const FileListener&) = delete;
  FileListener& operator=(const FileListener&) = delete;

  // Watches `path`. Neither the file nor its directory need exist yet: the
  // file is delivered once both do. An error (naming the directory) only
  // when the directory cannot be watched for another reason (permissions,
  // no inotify watches left). If the file exists, its current content is
  // delivered soon after (maybe before Register returns). Several
  // registrations of one path each get every event. Returns the id to pass
  // to Unregister.
  absl::StatusOr<int64_t> Register(const std::string& path, Callback callback);

  // After it returns, `id`'s callback is not running and is never called
  // again: if the callback is running, this waits for it to return, except
  // when called from that callback itself (then the callback is not called
  // again once it returns). Callable from any thread and any callback; never
  // waits for itself. Unknown or already removed ids are ignored.
  void Unregister(int64_t id);

  // false when inotify was turned off or is unavailable (polling).
  bool using_inotify() const { return using_inotify_; }

 private:
  struct Registration;  // one Register call; defined in the .cc
  struct Check;         // one registration's file, looked at in one pass

  // The thread: waits for work, then passes over the registrations.
  void Run();
  // Waits on the inotify and wake fds (at most poll_interval when
  // `watch_lost`), and marks the files that events name.
  void WaitForInotify(bool watch_lost);
  // Waits for the next polling tick or a wake-up.
  void WaitForTick();
  void ApplyEvent(const inotify_event& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The directory watch `wd` is gone (directory removed or moved): its files
  // wait for RewatchLostDirectories, as those whose directory was missing
  // at Register do.
  void LoseWatch(int wd, bool still_installed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Watches the directory of every registration without a watch; returns
  // true when some directory is still missing.
  bool RewatchLostDirectories() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReleaseWatch(Registration* reg) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What this pass looks at: files marked by events, or every file when polling.
  std::vector<Check> TakeChecks() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Decides each check's events and runs the callbacks.
  void Deliver(std::vector<Check>& checks);
  // Runs `reg`'s callback with mu_ released. Returns false when `reg` was
  // unregistered meanwhile (then it is destroyed: do not use it).
  bool RunCallback(int64_t id, Registration* reg, const FileEvent& event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Gets the thread to look at its registrations soon.
  void Wake() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction (the fds are set by the constructor, before
  // the thread starts).
  const Options options_;
  bool using_inotify_ = false;
  int inotify_fd_ = -1;  // owned; -1 when polling
  int wake_fd_ = -1;     // owned eventfd, written by Wake; -1 when polling

  Mutex mu_;
  // Owned registrations by id, in registration order (each pass looks at
  // them in that order). A Registration's fields are guarded by mu_, except
  // the constant ones it marks.
  std::map<int64_t, std::unique_ptr<Registration>> registrations_ ABSL_GUARDED_BY(mu_);
  // inotify watch descriptor -> number of registrations using it.
  std::map<int, int> watch_refs_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  // The id whose callback is running now; 0 when none.
  int64_t running_id_ ABSL_GUARDED_BY(mu_) = 0;
  // Signalled when running_id_ goes back to 0.
  CondVar callback_done_;
  bool wake_requested_ ABSL_GUARDED_BY(mu_) = false;  // polling mode
  CondVar wake_cv_;                                   // polling mode
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;

  // Started last in the constructor, joined by the destructor.
  std::thread thread_;
};

}  // namespace minitf

#endif  // MINITF_SESSION_ANTMAN_FILE_LISTENER_H_
