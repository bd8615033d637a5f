// Files for tests of the file-driven parts (config files, statistics):
// a fresh temporary directory, an atomic write as a scheduler does it, and
// reading a file back.
//
//   const std::string dir = test::MakeTempDir("gpu_rm");
//   test::WriteFileAtomically(dir + "/job.json", R"({"perfControl": 50})");
#ifndef MINITF_TESTS_TESTLIB_TEST_FILES_H_
#define MINITF_TESTS_TESTLIB_TEST_FILES_H_

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

}  // namespace minitf::test

#endif  // MINITF_TESTS_TESTLIB_TEST_FILES_H_
