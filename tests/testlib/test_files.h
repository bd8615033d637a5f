// Files for tests of the file-driven parts (config files, statistics):
// a fresh temporary directory, an atomic write as a scheduler does it,
// reading a file back, and writes the OS cuts short.
//
//   const std::string dir = test::MakeTempDir("gpu_rm");
//   test::WriteFileAtomically(dir + "/job.json", R"({"perfControl": 50})");
#ifndef MINITF_TESTS_TESTLIB_TEST_FILES_H_
#define MINITF_TESTS_TESTLIB_TEST_FILES_H_

#include <signal.h>
#include <sys/resource.h>

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace minitf::test {

// A new empty directory under the test's temporary directory, its name
// starting with `prefix`. Fails the current test when it cannot be made.
std::string MakeTempDir(absl::string_view prefix);

// Writes `content` to "<path>.tmp" and renames it over `path`, so a watcher
// sees the old file or the new one, never a partial one. Fails the current
// test on error.
void WriteFileAtomically(const std::string& path, absl::string_view content);

// The file's content; "" (and a test failure) when it cannot be read.
std::string ReadFileOrDie(const std::string& path);

// While alive, this process may write files of at most `bytes` bytes
// (RLIMIT_FSIZE) and a longer write fails with EFBIG, as a full disk fails
// with ENOSPC, for root too; SIGXFSZ is ignored meanwhile. Restores both.
// ctest runs each test in a process of its own.
class ScopedFileSizeLimit {
 public:
  explicit ScopedFileSizeLimit(uint64_t bytes);
  ~ScopedFileSizeLimit();
  ScopedFileSizeLimit(const ScopedFileSizeLimit&) = delete;
  ScopedFileSizeLimit& operator=(const ScopedFileSizeLimit&) = delete;

 private:
  struct rlimit saved_limit_;
  struct sigaction saved_action_;
};

}  // namespace minitf::test

#endif  // MINITF_TESTS_TESTLIB_TEST_FILES_H_
