#include "tests/testlib/test_files.h"

#include <stdio.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace minitf::test {

std::string MakeTempDir(absl::string_view prefix) {
  std::string pattern = absl::StrCat(::testing::TempDir(), prefix, "_XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    ADD_FAILURE() << "cannot make a temporary directory " << pattern;
  }
  return pattern;
}

void WriteFileAtomically(const std::string& path, absl::string_view content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out.good()) ADD_FAILURE() << "cannot write " << tmp;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) ADD_FAILURE() << "cannot rename over " << path;
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.good()) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

ScopedFileSizeLimit::ScopedFileSizeLimit(uint64_t bytes) {
  EXPECT_EQ(getrlimit(RLIMIT_FSIZE, &saved_limit_), 0);
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  EXPECT_EQ(sigaction(SIGXFSZ, &ignore, &saved_action_), 0);
  struct rlimit small = saved_limit_;
  small.rlim_cur = bytes;
  EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
}

ScopedFileSizeLimit::~ScopedFileSizeLimit() {
  EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &saved_limit_), 0);
  EXPECT_EQ(sigaction(SIGXFSZ, &saved_action_, nullptr), 0);
}

}  // namespace minitf::test
