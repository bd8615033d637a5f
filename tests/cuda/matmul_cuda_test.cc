// CPU/CUDA parity of MatMul (cuBLAS) for every transpose combination, an
// empty inner dimension, and the size-mismatch error, skipped without a GPU;
// and the CUDA tests' own environment.
#include <cstdlib>

#include "gtest/gtest.h"
#include "platform/tensor_float_32.h"
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

// Run by hand, without ctest's environment (compute-sanitizer), the binary
// still compares in FP32: cuBLAS chose a TF32 kernel for transpose_a and
// transpose_b both true on an H200 and missed the 1e-4 tolerance by 1e-3.
// Needs no GPU.
TEST(CudaTestEnvironmentTest, ParityTestsRunInFp32WithGrowingGpuMemory) {
  EXPECT_FALSE(TensorFloat32ExecutionEnabled());
  // "true" unless the caller set a value of their own.
  EXPECT_NE(std::getenv("TF_FORCE_GPU_ALLOW_GROWTH"), nullptr);
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
