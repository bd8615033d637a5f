// TF32 on a GPU, as TensorFlow has it: on by default, Conv2D (cuDNN) and
// MatMul (cuBLAS) then agree with the CPU's FP32 to TF32's precision (inputs
// rounded to 10 mantissa bits, FP32 accumulation), and turning it off gives
// FP32 to rounding. cuDNN plans each convolution shape once per math mode.
// This binary runs without NVIDIA_TF32_OVERRIDE (tests/CMakeLists.txt).
// Skipped without a GPU.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "platform/tensor_float_32.h"
#include "stream/cuda/cuda_dnn.h"

// TF32 as the process starts: this test's own (tests/cuda/cuda_test_device.h).
#define MINITF_CUDA_TESTS_KEEP_TF32
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using test::ExpectCudaMatchesCpu;
using test::MakeNodeDef;
using test::RandomTensor;
using test::VisibleCudaDevices;

NodeDef ConvNode() {
  return MakeNodeDef("c", "Conv2D",
                     {{"T", DT_FLOAT},
                      {"strides", std::vector<int64_t>{1, 1, 1, 1}},
                      {"padding", std::string("SAME")}});
}

std::vector<Tensor> ConvInputs() {
  return {RandomTensor(TensorShape({4, 14, 14, 32}), -1, 1, 1),
          RandomTensor(TensorShape({3, 3, 32, 64}), -1, 1, 2)};
}

class Tf32CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
    ASSERT_TRUE(TensorFloat32ExecutionEnabled()) << "NVIDIA_TF32_OVERRIDE=0 is set";
  }
  void TearDown() override { EnableTensorFloat32Execution(true); }

  static se::cuda::CudaDnn* Dnn() {
    absl::StatusOr<se::Platform*> cuda = se::PlatformManager::PlatformWithName("CUDA");
    if (!cuda.ok()) return nullptr;
    absl::StatusOr<se::StreamExecutor*> gpu0 = (*cuda)->ExecutorForDevice(0);
    if (!gpu0.ok()) return nullptr;
    return dynamic_cast<se::cuda::CudaDnn*>((*gpu0)->AsDnn());
  }
};

TEST_F(Tf32CudaTest, Conv2DMatchesCpuToTf32PrecisionAndToRoundingWithout) {
  // 288 products of values in [-1, 1] per output: TF32's 2^-11 relative
  // rounding of each input leaves errors of a few 1e-3.
  ExpectCudaMatchesCpu(ConvNode(), ConvInputs(), 3e-2, 1e-2);
  EnableTensorFloat32Execution(false);
  ExpectCudaMatchesCpu(ConvNode(), ConvInputs(), 1e-4, 1e-4);
}

TEST_F(Tf32CudaTest, MatMulMatchesCpuToTf32PrecisionAndToRoundingWithout) {
  const NodeDef mm = MakeNodeDef("mm", "MatMul",
                                 {{"T", DT_FLOAT}, {"transpose_a", false}, {"transpose_b", false}});
  const std::vector<Tensor> inputs = {RandomTensor(TensorShape({128, 256}), -1, 1, 3),
                                      RandomTensor(TensorShape({256, 96}), -1, 1, 4)};
  ExpectCudaMatchesCpu(mm, inputs, 3e-2, 1e-2);
  EnableTensorFloat32Execution(false);
  ExpectCudaMatchesCpu(mm, inputs, 1e-4, 1e-4);
}

TEST_F(Tf32CudaTest, EachConvolutionShapeIsPlannedOncePerMathMode) {
  se::cuda::CudaDnn* dnn = Dnn();
  ASSERT_NE(dnn, nullptr);
  // A shape no other case of this binary runs.
  const std::vector<Tensor> inputs = {RandomTensor(TensorShape({3, 9, 11, 8}), -1, 1, 5),
                                      RandomTensor(TensorShape({3, 3, 8, 16}), -1, 1, 6)};
  const size_t before = dnn->plan_count();
  ExpectCudaMatchesCpu(ConvNode(), inputs, 3e-2, 1e-2);
  EXPECT_EQ(dnn->plan_count(), before + 1);
  ExpectCudaMatchesCpu(ConvNode(), inputs, 3e-2, 1e-2);
  EXPECT_EQ(dnn->plan_count(), before + 1) << "a second call of one shape planned again";
  EnableTensorFloat32Execution(false);
  ExpectCudaMatchesCpu(ConvNode(), inputs, 1e-4, 1e-4);
  EXPECT_EQ(dnn->plan_count(), before + 2) << "FP32 math needs a plan of its own";
  ExpectCudaMatchesCpu(ConvNode(), inputs, 1e-4, 1e-4);
  EXPECT_EQ(dnn->plan_count(), before + 2);
}

}  // namespace
}  // namespace minitf
