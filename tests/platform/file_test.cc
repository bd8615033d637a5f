// WriteFileAtomically and ReadRegularFile in a directory a hostile tenant
// can write in: a link planted at the old fixed temporary name or in place
// of the target redirects nothing, a target that is no regular file is
// refused, a failed write leaves the old file and no temporary, readers see
// one version whole while writers race.
#include "platform/file.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/test_files.h"

namespace minitf {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The names in `dir`, sorted.
std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(WriteFileAtomicallyTest, ReplacesTheFileWholeReadableByOthersAndLeavesNothingElse) {
  const std::string dir = test::MakeTempDir("file");
  const std::string path = dir + "/summary.json";
  ASSERT_TRUE(WriteFileAtomically(path, "a much longer first version\n").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "short\n").ok());
  EXPECT_EQ(test::ReadFileOrDie(path), "short\n");
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"summary.json"});
  struct stat info;
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
}

// The attack the fixed "<path>.tmp" allowed: a tenant links it to a file
// outside the directory, and the writer would have overwritten that file.
TEST(WriteFileAtomicallyTest, ALinkPlantedAtATemporaryNameIsNotFollowed) {
  const std::string dir = test::MakeTempDir("file");
  const std::string outside = test::MakeTempDir("file_outside") + "/victim";
  test::WriteFileAtomically(outside, "precious\n");
  const std::string path = dir + "/job.config.json";
  ASSERT_EQ(symlink(outside.c_str(), (path + ".tmp").c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(path, "{\"perfControl\": 50}\n").ok());
  EXPECT_EQ(test::ReadFileOrDie(outside), "precious\n");
  EXPECT_EQ(test::ReadFileOrDie(path), "{\"perfControl\": 50}\n");
  EXPECT_TRUE(fs::is_symlink(path + ".tmp"));
}

TEST(WriteFileAtomicallyTest, ATargetThatIsASymbolicLinkIsRefusedNamingIt) {
  const std::string dir = test::MakeTempDir("file");
  const std::string outside = test::MakeTempDir("file_outside") + "/victim";
  test::WriteFileAtomically(outside, "precious\n");
  const std::string path = dir + "/job.config.json";
  ASSERT_EQ(symlink(outside.c_str(), path.c_str()), 0);
  const absl::Status s = WriteFileAtomically(path, "{}\n");
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  EXPECT_THAT(s.message(), HasSubstr(path));
  EXPECT_THAT(s.message(), HasSubstr("symbolic link"));
  EXPECT_EQ(test::ReadFileOrDie(outside), "precious\n");
  EXPECT_TRUE(fs::is_symlink(path));
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"job.config.json"});
}

TEST(WriteFileAtomicallyTest, ATargetThatIsADirectoryOrAFifoIsRefused) {
  const std::string dir = test::MakeTempDir("file");
  const std::string sub = dir + "/a_directory";
  ASSERT_TRUE(fs::create_directory(sub));
  absl::Status s = WriteFileAtomically(sub, "{}\n");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("a directory"));
  const std::string fifo = dir + "/a_fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  s = WriteFileAtomically(fifo, "{}\n");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("a FIFO"));
  EXPECT_THAT(s.message(), HasSubstr(fifo));
}

TEST(WriteFileAtomicallyTest, AMissingDirectoryIsUnavailableNamingTheFile) {
  const std::string path = test::MakeTempDir("file") + "/not_yet/stats.json";
  const absl::Status s = WriteFileAtomically(path, "{}\n");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_THAT(s.message(), HasSubstr(path));
  EXPECT_THAT(s.message(), HasSubstr(std::strerror(ENOENT)));
}

// A write the OS refuses halfway (here the file size limit, EFBIG, as a
// full disk refuses with ENOSPC): the old file stays, no temporary is left.
TEST(WriteFileAtomicallyTest, AFailedWriteKeepsTheOldFileAndLeavesNoTemporary) {
  const std::string dir = test::MakeTempDir("file");
  const std::string path = dir + "/trace.json";
  ASSERT_TRUE(WriteFileAtomically(path, "old\n").ok());
  absl::Status s;
  {
    const test::ScopedFileSizeLimit limit(4096);
    s = WriteFileAtomically(path, std::string(1 << 16, 'x'));
  }
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_THAT(s.message(), HasSubstr(path));
  EXPECT_THAT(s.message(), HasSubstr(std::strerror(EFBIG)));
  EXPECT_EQ(test::ReadFileOrDie(path), "old\n");
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"trace.json"});
}

// Each writer has a temporary of its own, so two writers never write into
// one file; a reader meanwhile sees one version whole.
TEST(WriteFileAtomicallyTest, RacingWritersEachLeaveAWholeVersion) {
  const std::string dir = test::MakeTempDir("file");
  const std::string path = dir + "/config.json";
  const std::string a(10000, 'a'), b(20000, 'b');
  ASSERT_TRUE(WriteFileAtomically(path, a).ok());
  auto writer = [&](const std::string& content) {
    for (int i = 0; i < 50; ++i) EXPECT_TRUE(WriteFileAtomically(path, content).ok());
  };
  std::thread ta(writer, a), tb(writer, b);
  for (int i = 0; i < 50; ++i) {
    const absl::StatusOr<std::string> seen = ReadRegularFile(path, 1 << 20, "a config");
    ASSERT_TRUE(seen.ok()) << seen.status();
    EXPECT_TRUE(*seen == a || *seen == b) << "a torn file of " << seen->size() << " bytes";
  }
  ta.join();
  tb.join();
  const std::string last = test::ReadFileOrDie(path);
  EXPECT_TRUE(last == a || last == b);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"config.json"});
}

TEST(ReadRegularFileTest, RefusesALinkWhenAskedAndFollowsItOtherwise) {
  const std::string dir = test::MakeTempDir("file");
  const std::string outside = test::MakeTempDir("file_outside") + "/secret";
  test::WriteFileAtomically(outside, "secret\n");
  const std::string path = dir + "/job.job.json";
  ASSERT_EQ(symlink(outside.c_str(), path.c_str()), 0);
  const absl::StatusOr<std::string> refused =
      ReadRegularFile(path, 1024, "a job's registration", Links::kRefuse);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr(path));
  EXPECT_THAT(refused.status().message(), HasSubstr("a job's registration"));
  const absl::StatusOr<std::string> followed = ReadRegularFile(path, 1024, "a graph");
  ASSERT_TRUE(followed.ok()) << followed.status();
  EXPECT_EQ(*followed, "secret\n");
  // A regular file reads the same either way.
  test::WriteFileAtomically(dir + "/plain.json", "{}\n");
  const absl::StatusOr<std::string> plain =
      ReadRegularFile(dir + "/plain.json", 1024, "a config", Links::kRefuse);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(*plain, "{}\n");
}

}  // namespace
}  // namespace minitf
