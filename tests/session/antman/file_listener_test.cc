#include "session/antman/file_listener.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platform/mutex.h"

namespace minitf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr absl::Duration kWaitLimit = absl::Seconds(5);

// "C:<content>" for kChanged, "D" for kDeleted, "U" for kUnreadable: what
// the assertions compare.
std::vector<std::string> Describe(const std::vector<FileEvent>& events) {
  std::vector<std::string> out;
  for (const FileEvent& e : events) {
    switch (e.kind) {
      case FileEvent::Kind::kChanged:
        out.push_back("C:" + e.content);
        break;
      case FileEvent::Kind::kDeleted:
        out.push_back("D");
        break;
      case FileEvent::Kind::kUnreadable:
        out.push_back("U");
        break;
    }
  }
  return out;
}

// Records the events of one registration. Thread-safe.
class EventCollector {
 public:
  FileListener::Callback AsCallback() {
    return [this](const FileEvent& event) { Add(event); };
  }
  void Add(const FileEvent& event) {
    MutexLock lock(&mu_);
    events_.push_back(event);
    cv_.SignalAll();
  }
  // Waits until `done(events)` holds or kWaitLimit passes; returns the events.
  std::vector<FileEvent> WaitUntil(const std::function<bool(const std::vector<FileEvent>&)>& done) {
    const absl::Time deadline = absl::Now() + kWaitLimit;
    MutexLock lock(&mu_);
    while (!done(events_) && absl::Now() < deadline) {
      cv_.WaitWithTimeout(&mu_, deadline - absl::Now());
    }
    return events_;
  }
  // Waits for at least `n` events (kWaitLimit at most).
  std::vector<FileEvent> WaitFor(size_t n) {
    return WaitUntil([n](const std::vector<FileEvent>& e) { return e.size() >= n; });
  }
  std::vector<FileEvent> Events() {
    MutexLock lock(&mu_);
    return events_;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  std::vector<FileEvent> events_ ABSL_GUARDED_BY(mu_);
};

// Writes a temporary file next to `path` and renames it over `path`.
void WriteAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0) << tmp;
    ASSERT_EQ(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
    ASSERT_EQ(close(fd), 0);
  }
  ASSERT_EQ(rename(tmp.c_str(), path.c_str()), 0) << path;
}

// Truncates and rewrites `path` itself (same inode).
void WriteInPlace(const std::string& path, const std::string& content) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
  ASSERT_EQ(close(fd), 0);
}

// Puts at `path`, by rename, a symbolic link to `target`.
void LinkAtomically(const std::string& target, const std::string& path) {
  const std::string tmp = path + ".link";
  ASSERT_EQ(symlink(target.c_str(), tmp.c_str()), 0) << tmp;
  ASSERT_EQ(rename(tmp.c_str(), path.c_str()), 0) << path;
}

// Parameter: true for inotify, false for polling.
class FileListenerTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string dir = ::testing::TempDir() + "file_listener_XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    listener_ = std::make_unique<FileListener>(Options());
  }
  void TearDown() override {
    listener_.reset();
    std::filesystem::remove_all(dir_);
  }

  FileListener::Options Options() const {
    FileListener::Options options;
    options.use_inotify = GetParam();
    options.poll_interval = absl::Milliseconds(10);
    return options;
  }
  // Replaces the listener by one made with `options`.
  void Restart(const FileListener::Options& options) {
    listener_.reset();
    listener_ = std::make_unique<FileListener>(options);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Owned by the test, outlives the listener.
  EventCollector* NewCollector() {
    collectors_.push_back(std::make_unique<EventCollector>());
    return collectors_.back().get();
  }
  int64_t Register(const std::string& path, EventCollector* collector) {
    absl::StatusOr<int64_t> id = listener_->Register(path, collector->AsCallback());
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or(-1);
  }

  // Registers the fence file. Call after the registrations Fence orders.
  void StartFence() {
    fence_ = NewCollector();
    Register(Path("fence"), fence_);
  }
  // Returns once every change made to registered files before the call has
  // been delivered: passes look at registrations in registration order, so
  // once two fence writes made after a change are delivered, so is the change.
  void Fence() {
    for (int round = 0; round < 2; ++round) {
      const std::string content = absl::StrCat("fence ", ++fence_count_);
      WriteAtomically(Path("fence"), content);
      const auto events = fence_->WaitUntil([&](const std::vector<FileEvent>& e) {
        return !e.empty() && e.back().content == content;
      });
      ASSERT_FALSE(events.empty());
      ASSERT_EQ(events.back().content, content);
    }
  }

  std::string dir_;
  std::vector<std::unique_ptr<EventCollector>> collectors_;
  EventCollector* fence_ = nullptr;
  int fence_count_ = 0;
  std::unique_ptr<FileListener> listener_;
};

TEST_P(FileListenerTest, ReportsItsMode) {
  if (GetParam() && !listener_->using_inotify()) GTEST_SKIP() << "no inotify here";
  EXPECT_EQ(listener_->using_inotify(), GetParam());
}

TEST_P(FileListenerTest, DeliversCurrentContentAtRegister) {
  WriteAtomically(Path("config.json"), "{\"limit\": 1}");
  EventCollector* events = NewCollector();
  Register(Path("config.json"), events);
  const std::vector<FileEvent> got = events->WaitFor(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, FileEvent::Kind::kChanged);
  EXPECT_EQ(got[0].path, Path("config.json"));
  EXPECT_EQ(got[0].content, "{\"limit\": 1}");
}

TEST_P(FileListenerTest, MissingFileIsDeliveredWhenCreated) {
  EventCollector* events = NewCollector();
  Register(Path("late"), events);
  StartFence();
  Fence();
  EXPECT_TRUE(events->Events().empty());
  WriteAtomically(Path("late"), "here");
  EXPECT_THAT(Describe(events->WaitFor(1)), ElementsAre("C:here"));
}

TEST_P(FileListenerTest, SeesAtomicRenameOver) {
  WriteAtomically(Path("f"), "one");
  EventCollector* events = NewCollector();
  Register(Path("f"), events);
  events->WaitFor(1);
  WriteAtomically(Path("f"), "two");
  EXPECT_THAT(Describe(events->WaitFor(2)), ElementsAre("C:one", "C:two"));
}

TEST_P(FileListenerTest, SeesInPlaceRewrite) {
  WriteInPlace(Path("f"), "short");
  EventCollector* events = NewCollector();
  Register(Path("f"), events);
  events->WaitFor(1);
  WriteInPlace(Path("f"), "a longer second version");
  // Polling may catch the file truncated mid-write; the final content follows.
  const std::vector<FileEvent> got = events->WaitUntil([](const std::vector<FileEvent>& e) {
    return !e.empty() && e.back().content == "a longer second version";
  });
  EXPECT_EQ(got.back().content, "a longer second version");
  for (const FileEvent& e : got) EXPECT_EQ(e.kind, FileEvent::Kind::kChanged);
}

TEST_P(FileListenerTest, IdenticalRewriteIsNotDeliveredAgain) {
  WriteAtomically(Path("f"), "same");
  EventCollector* events = NewCollector();
  Register(Path("f"), events);
  StartFence();
  events->WaitFor(1);
  WriteAtomically(Path("f"), "same");
  Fence();
  EXPECT_THAT(Describe(events->Events()), ElementsAre("C:same"));
  WriteAtomically(Path("f"), "different");
  EXPECT_THAT(Describe(events->WaitFor(2)), ElementsAre("C:same", "C:different"));
}

TEST_P(FileListenerTest, DeletionIsDeliveredOnceAndRecreationAgain) {
  WriteAtomically(Path("f"), "v");
  EventCollector* events = NewCollector();
  Register(Path("f"), events);
  StartFence();
  events->WaitFor(1);
  ASSERT_EQ(unlink(Path("f").c_str()), 0);
  const std::vector<FileEvent> got = events->WaitFor(2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].kind, FileEvent::Kind::kDeleted);
  EXPECT_EQ(got[1].path, Path("f"));
  EXPECT_EQ(got[1].content, "");
  Fence();
  EXPECT_EQ(events->Events().size(), 2u);
  // The same content again is news after a deletion.
  WriteAtomically(Path("f"), "v");
  EXPECT_THAT(Describe(events->WaitFor(3)), ElementsAre("C:v", "D", "C:v"));
}

TEST_P(FileListenerTest, FilesInOneDirectoryAreIndependent) {
  WriteAtomically(Path("a"), "a1");
  WriteAtomically(Path("b"), "b1");
  EventCollector* a = NewCollector();
  EventCollector* b = NewCollector();
  Register(Path("a"), a);
  Register(Path("b"), b);
  StartFence();
  a->WaitFor(1);
  b->WaitFor(1);
  WriteAtomically(Path("a"), "a2");
  EXPECT_THAT(Describe(a->WaitFor(2)), ElementsAre("C:a1", "C:a2"));
  ASSERT_EQ(unlink(Path("b").c_str()), 0);
  EXPECT_THAT(Describe(b->WaitFor(2)), ElementsAre("C:b1", "D"));
  Fence();
  EXPECT_THAT(Describe(a->Events()), ElementsAre("C:a1", "C:a2"));
  EXPECT_THAT(Describe(b->Events()), ElementsAre("C:b1", "D"));
}

TEST_P(FileListenerTest, EveryRegistrationOfOnePathGetsEvents) {
  WriteAtomically(Path("f"), "one");
  EventCollector* first = NewCollector();
  EventCollector* second = NewCollector();
  const int64_t first_id = Register(Path("f"), first);
  Register(Path("f"), second);
  StartFence();
  first->WaitFor(1);
  second->WaitFor(1);
  WriteAtomically(Path("f"), "two");
  EXPECT_THAT(Describe(first->WaitFor(2)), ElementsAre("C:one", "C:two"));
  EXPECT_THAT(Describe(second->WaitFor(2)), ElementsAre("C:one", "C:two"));
  // Dropping one registration (and its share of the directory watch) leaves the other.
  listener_->Unregister(first_id);
  WriteAtomically(Path("f"), "three");
  EXPECT_THAT(Describe(second->WaitFor(3)), ElementsAre("C:one", "C:two", "C:three"));
  Fence();
  EXPECT_EQ(first->Events().size(), 2u);
}

TEST_P(FileListenerTest, NoCallbackAfterUnregister) {
  WriteAtomically(Path("f"), "one");
  EventCollector* events = NewCollector();
  const int64_t id = Register(Path("f"), events);
  StartFence();
  events->WaitFor(1);
  listener_->Unregister(id);
  listener_->Unregister(id);  // unknown by now: ignored
  WriteAtomically(Path("f"), "two");
  ASSERT_EQ(unlink(Path("f").c_str()), 0);
  Fence();
  EXPECT_THAT(Describe(events->Events()), ElementsAre("C:one"));
}

TEST_P(FileListenerTest, CallbackMayUnregisterItself) {
  EventCollector* events = NewCollector();
  std::atomic<int64_t> id{-1};
  absl::StatusOr<int64_t> registered = listener_->Register(Path("f"), [&](const FileEvent& event) {
    events->Add(event);
    listener_->Unregister(id.load());
  });
  ASSERT_TRUE(registered.ok()) << registered.status();
  id = *registered;  // before the file exists, so before any callback
  StartFence();
  WriteAtomically(Path("f"), "one");
  events->WaitFor(1);
  WriteAtomically(Path("f"), "two");
  Fence();
  EXPECT_THAT(Describe(events->Events()), ElementsAre("C:one"));
}

TEST_P(FileListenerTest, CallbackMayRegisterAndUnregisterOthers) {
  EventCollector* victim = NewCollector();
  EventCollector* added = NewCollector();
  WriteAtomically(Path("added"), "added content");
  const int64_t victim_id = Register(Path("victim"), victim);
  std::atomic<int64_t> added_id{-1};
  absl::StatusOr<int64_t> trigger = listener_->Register(Path("trigger"), [&](const FileEvent&) {
    listener_->Unregister(victim_id);
    absl::StatusOr<int64_t> id = listener_->Register(Path("added"), added->AsCallback());
    added_id = id.value_or(-2);
  });
  ASSERT_TRUE(trigger.ok()) << trigger.status();
  StartFence();
  WriteAtomically(Path("trigger"), "go");
  EXPECT_THAT(Describe(added->WaitFor(1)), ElementsAre("C:added content"));
  EXPECT_GT(added_id.load(), 0);
  WriteAtomically(Path("victim"), "ignored");
  Fence();
  EXPECT_TRUE(victim->Events().empty());
}

TEST_P(FileListenerTest, DirectoryRemovedAndRecreatedIsWatchedAgain) {
  const std::string sub = Path("sub");
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  WriteAtomically(sub + "/f", "old");
  EventCollector* events = NewCollector();
  Register(sub + "/f", events);
  events->WaitFor(1);
  ASSERT_EQ(unlink((sub + "/f").c_str()), 0);
  events->WaitFor(2);
  ASSERT_EQ(rmdir(sub.c_str()), 0);
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  WriteAtomically(sub + "/f", "new");
  EXPECT_THAT(Describe(events->WaitFor(3)), ElementsAre("C:old", "D", "C:new"));
}

TEST_P(FileListenerTest, DirectoryMovedAwayIsNoLongerFollowed) {
  const std::string sub = Path("sub");
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  WriteAtomically(sub + "/f", "old");
  EventCollector* events = NewCollector();
  Register(sub + "/f", events);
  StartFence();
  events->WaitFor(1);
  ASSERT_EQ(rename(sub.c_str(), Path("moved").c_str()), 0);
  EXPECT_THAT(Describe(events->WaitFor(2)), ElementsAre("C:old", "D"));
  WriteAtomically(Path("moved") + "/f", "stale");
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  WriteAtomically(sub + "/f", "new");
  events->WaitFor(3);
  Fence();
  EXPECT_THAT(Describe(events->Events()), ElementsAre("C:old", "D", "C:new"));
}

TEST_P(FileListenerTest, FileInADirectoryMadeAfterRegisterIsDelivered) {
  const std::string file = Path("absent/deeper/f.json");
  EventCollector* events = NewCollector();
  Register(file, events);
  StartFence();
  Fence();
  EXPECT_TRUE(events->Events().empty());
  ASSERT_EQ(mkdir(Path("absent").c_str(), 0755), 0);
  ASSERT_EQ(mkdir(Path("absent/deeper").c_str(), 0755), 0);
  WriteAtomically(file, "made later");
  EXPECT_THAT(Describe(events->WaitFor(1)), ElementsAre("C:made later"));
  // Watched from then on like any other.
  WriteAtomically(file, "changed");
  EXPECT_THAT(Describe(events->WaitFor(2)), ElementsAre("C:made later", "C:changed"));
}

TEST_P(FileListenerTest, RegisterRejectsPathNamingNoFile) {
  EventCollector* events = NewCollector();
  absl::StatusOr<int64_t> id = listener_->Register(dir_ + "/", events->AsCallback());
  EXPECT_EQ(id.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(id.status().message(), HasSubstr(dir_));
}

TEST_P(FileListenerTest, FileOverTheSizeLimitIsReportedUnreadable) {
  FileListener::Options options = Options();
  options.max_file_size = 8;
  Restart(options);
  WriteAtomically(Path("f"), "12345678");  // At the limit: read.
  EventCollector* events = NewCollector();
  Register(Path("f"), events);
  EXPECT_THAT(Describe(events->WaitFor(1)), ElementsAre("C:12345678"));
  WriteAtomically(Path("f"), "123456789");
  const std::vector<FileEvent> got = events->WaitFor(2);
  ASSERT_THAT(Describe(got), ElementsAre("C:12345678", "U"));
  EXPECT_EQ(got[1].path, Path("f"));
  EXPECT_EQ(got[1].content, "");
  EXPECT_THAT(got[1].error.message(), HasSubstr(Path("f")));
  EXPECT_THAT(got[1].error.message(), HasSubstr("8 bytes"));
  // Back under the limit: delivered as usual.
  WriteAtomically(Path("f"), "1234");
  EXPECT_THAT(Describe(events->WaitFor(3)), ElementsAre("C:12345678", "U", "C:1234"));
}

TEST_P(FileListenerTest, TwoMebibyteFileIsNotDeliveredUnderTheDefaultLimit) {
  WriteAtomically(Path("f"), "small");
  EventCollector* events = NewCollector();
  Register(Path("f"), events);
  events->WaitFor(1);
  WriteAtomically(Path("f"), std::string(2 << 20, 'x'));
  const std::vector<FileEvent> got = events->WaitFor(2);
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(got[1].kind, FileEvent::Kind::kUnreadable)
      << "delivered " << got[1].content.size() << " bytes";
  EXPECT_THAT(got[1].error.message(), HasSubstr(Path("f")));
  EXPECT_THAT(got[1].error.message(), HasSubstr("1048576 bytes"));
}

// /dev/zero never ends: reading it until its end would never return.
TEST_P(FileListenerTest, SymlinkToDevZeroIsReportedUnreadableNotRead) {
  WriteAtomically(Path("f"), "good");
  EventCollector* events = NewCollector();
  Register(Path("f"), events);
  events->WaitFor(1);
  LinkAtomically("/dev/zero", Path("f"));
  const std::vector<FileEvent> got = events->WaitFor(2);
  ASSERT_THAT(Describe(got), ElementsAre("C:good", "U"));
  EXPECT_THAT(got[1].error.message(), HasSubstr(Path("f")));
  EXPECT_THAT(got[1].error.message(), HasSubstr("not a regular file"));
  WriteAtomically(Path("f"), "good again");
  EXPECT_THAT(Describe(events->WaitFor(3)), ElementsAre("C:good", "U", "C:good again"));
}

// Opening a FIFO for reading waits for a writer: the listener must not.
TEST_P(FileListenerTest, FifoIsReportedUnreadableAndDoesNotBlockTheListener) {
  EventCollector* events = NewCollector();
  Register(Path("f"), events);
  StartFence();
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0644), 0);
  ASSERT_EQ(rename(Path("fifo").c_str(), Path("f").c_str()), 0);
  const std::vector<FileEvent> got = events->WaitFor(1);
  ASSERT_THAT(Describe(got), ElementsAre("U"));
  EXPECT_THAT(got[0].error.message(), HasSubstr("not a regular file"));
  Fence();  // Other files are still served.
}

INSTANTIATE_TEST_SUITE_P(Modes, FileListenerTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Inotify" : "Polling";
                         });

}  // namespace
}  // namespace minitf
