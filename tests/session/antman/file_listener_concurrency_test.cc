// FileListener across threads: Unregister and the destructor against a
// running callback, and threads registering and unregistering (some from
// inside their callbacks) while another keeps rewriting and deleting the
// files. Run under ThreadSanitizer by `make check`.
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "platform/mutex.h"
#include "session/antman/file_listener.h"

namespace minitf {
namespace {

constexpr absl::Duration kWaitLimit = absl::Seconds(5);

void WriteAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  FILE* file = std::fopen(tmp.c_str(), "w");
  ASSERT_NE(file, nullptr) << tmp;
  std::fputs(content.c_str(), file);
  ASSERT_EQ(std::fclose(file), 0);
  ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0) << path;
}

// Parameter: true for inotify, false for polling.
class FileListenerConcurrencyTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string dir = ::testing::TempDir() + "file_listener_threads_XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    FileListener::Options options;
    options.use_inotify = GetParam();
    options.poll_interval = absl::Milliseconds(5);
    listener_ = std::make_unique<FileListener>(options);
  }
  void TearDown() override {
    listener_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
  std::unique_ptr<FileListener> listener_;
};

TEST_P(FileListenerConcurrencyTest, UnregisterWaitsForRunningCallback) {
  WriteAtomically(Path("f"), "one");
  Notification entered, release;
  std::atomic<bool> callback_returned{false};
  absl::StatusOr<int64_t> id = listener_->Register(Path("f"), [&](const FileEvent&) {
    entered.Notify();
    release.WaitForNotification();
    callback_returned = true;
  });
  ASSERT_TRUE(id.ok()) << id.status();
  ASSERT_TRUE(entered.WaitForNotificationWithTimeout(kWaitLimit));
  std::atomic<bool> unregister_returned{false};
  bool callback_returned_first = false;
  std::thread unregistering([&] {
    listener_->Unregister(*id);
    callback_returned_first = callback_returned.load();
    unregister_returned = true;
  });
  EXPECT_FALSE(unregister_returned.load());
  release.Notify();
  unregistering.join();
  EXPECT_TRUE(callback_returned_first);
}

TEST_P(FileListenerConcurrencyTest, DestructorWaitsForRunningCallbackAndStopsDelivery) {
  WriteAtomically(Path("f"), "one");
  Notification entered, release;
  std::atomic<int> calls{0};
  std::atomic<bool> callback_returned{false};
  absl::StatusOr<int64_t> id = listener_->Register(Path("f"), [&](const FileEvent&) {
    ++calls;
    entered.Notify();
    release.WaitForNotification();
    callback_returned = true;
  });
  ASSERT_TRUE(id.ok()) << id.status();
  ASSERT_TRUE(entered.WaitForNotificationWithTimeout(kWaitLimit));
  bool callback_returned_first = false;
  std::thread destroying([&] {
    listener_.reset();
    callback_returned_first = callback_returned.load();
  });
  release.Notify();
  destroying.join();
  EXPECT_TRUE(callback_returned_first);
  WriteAtomically(Path("f"), "two");
  absl::SleepFor(absl::Milliseconds(20));  // four poll intervals: time enough to be wrong
  EXPECT_EQ(calls.load(), 1);
}

// One registration's view. Kept alive to the end of the test, so a callback
// that ran too late is reported, not a crash.
struct Probe {
  std::atomic<int64_t> id{-1};
  std::atomic<bool> unregister_returned{false};
  std::atomic<bool> late_callback{false};
  Notification first_call;
  bool unregister_itself = false;
  // Written by callbacks only and read after Unregister: ThreadSanitizer
  // checks that Unregister orders them.
  int calls = 0;
};

TEST_P(FileListenerConcurrencyTest, RegisterAndUnregisterWhileFilesChange) {
  constexpr int kFiles = 4, kThreads = 4, kRegistrationsPerThread = 250;
  auto path = [&](int i) { return Path(absl::StrCat("file", i)); };
  for (int i = 0; i < kFiles; ++i) WriteAtomically(path(i), "initial");

  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int n = 0; !stop.load(); ++n) {
      const std::string file = path(n % kFiles);
      if (n % 7 == 0) {
        unlink(file.c_str());
      } else {
        WriteAtomically(file, absl::StrCat("version ", n));
      }
      std::this_thread::yield();
    }
  });

  std::vector<std::vector<std::unique_ptr<Probe>>> probes(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRegistrationsPerThread; ++r) {
        probes[t].push_back(std::make_unique<Probe>());
        Probe* probe = probes[t].back().get();
        probe->unregister_itself = r % 3 == 0;
        FileListener* listener = listener_.get();
        absl::StatusOr<int64_t> id =
            listener->Register(path((t + r) % kFiles), [probe, listener](const FileEvent&) {
              if (probe->unregister_returned.load()) probe->late_callback = true;
              ++probe->calls;
              probe->first_call.Notify();
              const int64_t own_id = probe->id.load();
              if (probe->unregister_itself && own_id > 0) listener->Unregister(own_id);
              if (probe->unregister_returned.load()) probe->late_callback = true;
            });
        ASSERT_TRUE(id.ok()) << id.status();
        probe->id = *id;
        if (r % 4 == 0) probe->first_call.WaitForNotificationWithTimeout(absl::Milliseconds(20));
        listener->Unregister(*id);
        probe->unregister_returned = true;
        EXPECT_GE(probe->calls, 0);  // a plain read, ordered after the callbacks by Unregister
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  // The listener goes while files still change and registrations remain.
  std::vector<std::unique_ptr<Probe>> remaining;
  for (int i = 0; i < kFiles; ++i) {
    remaining.push_back(std::make_unique<Probe>());
    Probe* probe = remaining.back().get();
    ASSERT_TRUE(listener_->Register(path(i), [probe](const FileEvent&) { ++probe->calls; }).ok());
  }
  listener_.reset();
  stop = true;
  writer.join();

  int64_t calls = 0;
  for (const auto& thread_probes : probes) {
    for (const auto& probe : thread_probes) {
      EXPECT_FALSE(probe->late_callback.load()) << "a callback ran after Unregister returned";
      calls += probe->calls;
    }
  }
  for (const auto& probe : remaining) calls += probe->calls;
  EXPECT_GT(calls, 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, FileListenerConcurrencyTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Inotify" : "Polling";
                         });

TEST(FileListenerGlobalConcurrencyTest, GlobalIsMadeOnceAcrossThreads) {
  std::vector<FileListener*> seen(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&seen, i] { seen[i] = FileListener::Global(); });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_NE(seen[0], nullptr);
  for (FileListener* listener : seen) EXPECT_EQ(listener, seen[0]);
}

}  // namespace
}  // namespace minitf
