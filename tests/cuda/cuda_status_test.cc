// Tests that run without a GPU: CUDA, cuBLAS and cuDNN errors become
// statuses that name the error and the call, and the CUDA platform is
// registered and reports its devices (0 here) without aborting.
#include "stream/cuda/cuda_status.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "stream/cuda/cuda_platform.h"
#include "stream/platform_manager.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf::se::cuda {
namespace {

using ::testing::HasSubstr;

TEST(CudaStatusTest, SuccessIsOk) {
  EXPECT_TRUE(CudaStatus(cudaSuccess, "cudaMalloc").ok());
  EXPECT_TRUE(CublasStatus(CUBLAS_STATUS_SUCCESS, "cublasSgemm").ok());
  EXPECT_TRUE(CudnnStatus(CUDNN_STATUS_SUCCESS, "cudnnConvolutionForward").ok());
}

TEST(CudaStatusTest, CudaErrorNamesTheErrorAndTheCall) {
  const absl::Status s = CudaStatus(cudaErrorMemoryAllocation, "cudaMalloc(&ptr, 1024)");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("cudaErrorMemoryAllocation"));
  EXPECT_THAT(s.message(), HasSubstr("cudaMalloc(&ptr, 1024)"));
}

TEST(CudaStatusTest, CudaErrorCodesMapByKind) {
  EXPECT_EQ(CudaStatus(cudaErrorInvalidValue, "x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CudaStatus(cudaErrorNoDevice, "x").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CudaStatus(cudaErrorLaunchFailure, "x").code(), absl::StatusCode::kInternal);
  EXPECT_THAT(CudaStatus(cudaErrorNoDevice, "x").message(), HasSubstr("cudaErrorNoDevice"));
}

TEST(CudaStatusTest, CublasErrorNamesTheStatus) {
  const absl::Status s = CublasStatus(CUBLAS_STATUS_ALLOC_FAILED, "cublasCreate");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("CUBLAS_STATUS_ALLOC_FAILED"));
  EXPECT_THAT(s.message(), HasSubstr("cublasCreate"));
  EXPECT_STREQ(CublasStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE");
}

TEST(CudaStatusTest, CudnnErrorNamesTheStatus) {
  const absl::Status s = CudnnStatus(CUDNN_STATUS_BAD_PARAM, "cudnnSetTensor4dDescriptor");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("CUDNN_STATUS_BAD_PARAM"));
  EXPECT_THAT(s.message(), HasSubstr("cudnnSetTensor4dDescriptor"));
  EXPECT_EQ(CudnnStatus(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, "x").code(),
            absl::StatusCode::kUnimplemented);
}

absl::Status FailingCall() {
  MINITF_RETURN_IF_CUDA_ERROR(cudaErrorInvalidValue);
  return absl::OkStatus();
}

TEST(CudaStatusTest, ReturnMacroQuotesTheExpression) {
  const absl::Status s = FailingCall();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("cudaErrorInvalidValue failed: cudaErrorInvalidValue"));
}

TEST(CudaPlatformTest, IsRegisteredAndCountsDevicesWithoutAborting) {
  absl::StatusOr<Platform*> platform = PlatformManager::PlatformWithName("CUDA");
  ASSERT_TRUE(platform.ok()) << platform.status();
  EXPECT_EQ((*platform)->Name(), "CUDA");
  EXPECT_EQ((*platform)->id(), CudaPlatform::Id());
  int runtime_count = 0;
  if (cudaGetDeviceCount(&runtime_count) != cudaSuccess) runtime_count = 0;
  cudaGetLastError();
  EXPECT_EQ((*platform)->VisibleDeviceCount(), runtime_count);
  EXPECT_EQ(test::VisibleCudaDevices(), runtime_count);
}

TEST(CudaPlatformTest, OrdinalPastTheVisibleDevicesIsInvalidArgument) {
  Platform* platform = *PlatformManager::PlatformWithName("CUDA");
  absl::StatusOr<StreamExecutor*> executor =
      platform->ExecutorForDevice(platform->VisibleDeviceCount());
  EXPECT_EQ(executor.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(executor.status().message(), HasSubstr("out of range"));
  EXPECT_EQ(platform->ExecutorForDevice(-1).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace minitf::se::cuda
