// NumPy .npy files (runtime/npy_io.h): the bytes np.save writes, round trips
// for every dtype, and the errors for files minitf cannot read.
#include "runtime/npy_io.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/test_files.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

// np.save of np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32): a version 1.0
// header padded to a multiple of 64 bytes, then the little-endian elements.
std::string NumpyInt32Bytes() {
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size()));
  out.push_back('\0');
  out += header;
  for (int32_t v : {1, 2, 3, 4, 5, 6}) out.append(reinterpret_cast<const char*>(&v), 4);
  return out;
}

TEST(NpyIoTest, ReadsWhatNumpyWrites) {
  absl::StatusOr<Tensor> t = ParseNpy(NumpyInt32Bytes());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DT_INT32);
  EXPECT_EQ(t->shape(), TensorShape({2, 3}));
  EXPECT_THAT(std::vector<int32_t>(t->data<int32_t>(), t->data<int32_t>() + 6),
              ::testing::ElementsAre(1, 2, 3, 4, 5, 6));
  // And writes the same bytes back.
  EXPECT_EQ(SerializeNpy(*t), NumpyInt32Bytes());
}

TEST(NpyIoTest, EveryDtypeRoundTripsThroughAFile) {
  const std::string dir = test::MakeTempDir("npy_io");
  const Tensor tensors[] = {
      Tensor::FromVector<float>({1.5f, -2.0f, 3.0f, 4.0f}, TensorShape({2, 2})),
      Tensor::FromVector<double>({1e-300, 2.5}),
      Tensor::FromVector<int64_t>({-1, 1LL << 40}),
      Tensor::FromVector<bool>({true, false, true}),
      Tensor::Scalar<int32_t>(7),
      Tensor(DT_FLOAT, TensorShape({0, 5})),
  };
  for (const Tensor& t : tensors) {
    const std::string path = dir + "/t.npy";
    ASSERT_TRUE(WriteNpyFile(path, t).ok());
    absl::StatusOr<Tensor> read = ReadNpyFile(path);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->dtype(), t.dtype());
    EXPECT_EQ(read->shape(), t.shape());
    EXPECT_EQ(std::string(static_cast<const char*>(read->raw_data()), read->TotalBytes()),
              std::string(static_cast<const char*>(t.raw_data()), t.TotalBytes()));
  }
  // A scalar is written with shape (), a vector with (n,).
  EXPECT_THAT(SerializeNpy(Tensor::Scalar<int32_t>(7)), HasSubstr("'shape': ()"));
  EXPECT_THAT(SerializeNpy(Tensor::FromVector<double>({1, 2})), HasSubstr("'shape': (2,)"));
}

TEST(NpyIoTest, UnreadableFilesAreErrorsSayingWhy) {
  std::string big_endian = NumpyInt32Bytes();
  big_endian.replace(big_endian.find("<i4"), 3, ">i4");
  EXPECT_THAT(ParseNpy(big_endian, "x.npy").status().message(),
              HasSubstr("x.npy: dtype '>i4' is not supported"));

  std::string fortran = NumpyInt32Bytes();
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_THAT(ParseNpy(fortran).status().message(), HasSubstr("Fortran-order"));

  std::string strings = NumpyInt32Bytes();
  strings.replace(strings.find("<i4"), 3, "<U3");
  EXPECT_EQ(ParseNpy(strings).status().code(), absl::StatusCode::kInvalidArgument);

  const std::string full = NumpyInt32Bytes();
  EXPECT_THAT(ParseNpy(full.substr(0, full.size() - 4)).status().message(),
              HasSubstr("the data has 20 bytes"));
  EXPECT_THAT(ParseNpy("not numpy").status().message(), HasSubstr("magic"));
  EXPECT_EQ(ReadNpyFile("/nonexistent/x.npy").status().code(), absl::StatusCode::kNotFound);
}

TEST(NpyIoTest, OnlyRegularFilesAreRead) {
  // /dev/zero never ends: reading it filled the memory before.
  absl::StatusOr<Tensor> zero = ReadNpyFile("/dev/zero");
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(zero.status().message(), HasSubstr("'/dev/zero' is a character device"));
  absl::StatusOr<Tensor> dir = ReadNpyFile(test::MakeTempDir("npy_dir"));
  EXPECT_THAT(dir.status().message(), HasSubstr("is a directory"));
}

}  // namespace
}  // namespace minitf
