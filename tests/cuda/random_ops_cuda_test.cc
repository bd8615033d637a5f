// CPU/CUDA parity of the random ops on CUDA GPUs: RandomUniform,
// RandomStandardNormal and TruncatedNormal (float, double, int32 and int64
// shapes) and RandomUniformInt (int64) give the CPU's numbers, which are
// TensorFlow's (the random_ops fixture), for the same seeds: whole groups,
// a partial last group, several groups per thread, and no elements. A bad
// shape or range fails as on the CPU. Skipped without a GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using test::ExpectCudaMatchesCpu;
using test::MakeNodeDef;
using test::VisibleCudaDevices;

class RandomOpsCudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  }
};

template <typename Index>
Tensor ShapeTensor(const std::vector<Index>& dims) {
  Tensor t(DataTypeToEnum<Index>::value, TensorShape({static_cast<int64_t>(dims.size())}));
  for (size_t i = 0; i < dims.size(); ++i) t.data<Index>()[i] = dims[i];
  return t;
}

Tensor Int64Scalar(int64_t value) {
  Tensor t(DT_INT64, TensorShape({}));
  t.data<int64_t>()[0] = value;
  return t;
}

NodeDef RandomNode(const std::string& op, DataType dtype, DataType index, int64_t seed,
                   int64_t seed2) {
  return MakeNodeDef("random", op, {{"dtype", dtype}, {"T", index}, {"seed", seed},
                                    {"seed2", seed2}});
}

TEST_F(RandomOpsCudaTest, FloatingDistributionsMatchTheCpu) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      SCOPED_TRACE(std::string(op) + " " + DataTypeString(dtype));
      // Whole groups, a partial last group, many groups, none.
      ExpectCudaMatchesCpu(RandomNode(op, dtype, DT_INT32, 87654321, 42),
                           {ShapeTensor<int32_t>({4, 4})});
      ExpectCudaMatchesCpu(RandomNode(op, dtype, DT_INT64, 1, 2), {ShapeTensor<int64_t>({7})});
      ExpectCudaMatchesCpu(RandomNode(op, dtype, DT_INT32, 5, 0),
                           {ShapeTensor<int32_t>({513, 1031})});
      ExpectCudaMatchesCpu(RandomNode(op, dtype, DT_INT64, 3, 4), {ShapeTensor<int64_t>({0, 9})});
      // A shape that is not a vector fails the same way.
      ExpectCudaMatchesCpu(RandomNode(op, dtype, DT_INT32, 3, 4), {ShapeTensor<int32_t>({})});
    }
  }
}

TEST_F(RandomOpsCudaTest, UniformInt64MatchesTheCpu) {
  auto node = [](int64_t seed) {
    return MakeNodeDef("random", "RandomUniformInt",
                       {{"Tout", DT_INT64}, {"T", DT_INT32}, {"seed", seed}, {"seed2", 9}});
  };
  ExpectCudaMatchesCpu(node(7), {ShapeTensor<int32_t>({3, 5}), Int64Scalar(-20), Int64Scalar(30)},
                       0, 0);
  ExpectCudaMatchesCpu(node(8),
                       {ShapeTensor<int32_t>({1000}), Int64Scalar(INT64_MIN / 2),
                        Int64Scalar(INT64_MAX / 2)},
                       0, 0);
  // minval >= maxval fails as on the CPU.
  ExpectCudaMatchesCpu(node(7), {ShapeTensor<int32_t>({2}), Int64Scalar(5), Int64Scalar(5)}, 0, 0);
}

}  // namespace
}  // namespace minitf
