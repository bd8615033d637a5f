// CPU/CUDA parity of MatMul (cuBLAS) for every transpose combination, an
// empty inner dimension, and the size-mismatch error. Skipped without a GPU.
#include "gtest/gtest.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using test::ExpectCudaMatchesCpu;
using test::MakeNodeDef;
using test::RandomTensor;
using test::VisibleCudaDevices;

NodeDef MatMulNode(bool transpose_a, bool transpose_b) {
  return MakeNodeDef("mm", "MatMul",
                     {{"T", DT_FLOAT}, {"transpose_a", transpose_a}, {"transpose_b", transpose_b}});
}

TEST(MatMulCudaTest, MatchesCpuForEveryTransposeCombination) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const int64_t m = 37, k = 53, n = 29;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(testing::Message() << "transpose_a=" << ta << " transpose_b=" << tb);
      const Tensor a = RandomTensor(ta ? TensorShape({k, m}) : TensorShape({m, k}), -1, 1, 1);
      const Tensor b = RandomTensor(tb ? TensorShape({n, k}) : TensorShape({k, n}), -1, 1, 2);
      ExpectCudaMatchesCpu(MatMulNode(ta, tb), {a, b}, 1e-4, 1e-4);
    }
  }
}

TEST(MatMulCudaTest, EmptyInnerDimensionGivesZeros) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  ExpectCudaMatchesCpu(MatMulNode(false, false),
                       {RandomTensor(TensorShape({3, 0})), RandomTensor(TensorShape({0, 4}))});
  ExpectCudaMatchesCpu(MatMulNode(false, false),
                       {RandomTensor(TensorShape({0, 5})), RandomTensor(TensorShape({5, 4}))});
}

TEST(MatMulCudaTest, SizeMismatchFailsAsOnCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  ExpectCudaMatchesCpu(MatMulNode(false, true),
                       {RandomTensor(TensorShape({3, 4})), RandomTensor(TensorShape({4, 5}))});
}

}  // namespace
}  // namespace minitf
