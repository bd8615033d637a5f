// GPU busy time on the CUDA platform: a stream's BusyTime() grows with the
// kernels it runs (a MatMul through cuBLAS included) and stays below the
// wall time they took; KernelBusyTimer reuses a bounded pool of events
// however far the host runs ahead. Skipped without a GPU.
#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "stream/cuda/kernel_busy_timer.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using test::CudaTestDevice;
using test::MakeNodeDef;
using test::RandomTensor;
using test::RunOnCuda;
using test::VisibleCudaDevices;

class CudaBusyTimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  }
};

TEST_F(CudaBusyTimeTest, MatMulAddsBusyTimeBelowWallTime) {
  absl::StatusOr<std::unique_ptr<CudaTestDevice>> created = CudaTestDevice::Create();
  ASSERT_TRUE(created.ok()) << created.status();
  CudaTestDevice* device = created->get();
  const NodeDef def = MakeNodeDef("mm", "MatMul", {{"T", DT_FLOAT}});
  const Tensor a = RandomTensor(TensorShape({1024, 1024}), -1, 1, 1);
  const Tensor b = RandomTensor(TensorShape({1024, 1024}), -1, 1, 2);
  // Warm-up: cuBLAS's handle and first-use costs are not the point here.
  ASSERT_TRUE(RunOnCuda(device, def, {a, b}).ok());
  const absl::Duration busy_before = device->stream()->BusyTime();

  const absl::Time start = absl::Now();
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<std::vector<Tensor>> c = RunOnCuda(device, def, {a, b});
    ASSERT_TRUE(c.ok()) << c.status();
  }
  const absl::Duration wall = absl::Now() - start;
  // RunOnCuda waited for the stream each time, so every interval is complete.
  const absl::Duration busy = device->stream()->BusyTime() - busy_before;
  EXPECT_GT(busy, absl::ZeroDuration());
  EXPECT_LT(busy, wall);
}

TEST_F(CudaBusyTimeTest, BusyTimeNeverDecreasesAndDoesNotBlock) {
  absl::StatusOr<std::unique_ptr<CudaTestDevice>> created = CudaTestDevice::Create();
  ASSERT_TRUE(created.ok()) << created.status();
  CudaTestDevice* device = created->get();
  const NodeDef def = MakeNodeDef("e", "Exp", {{"T", DT_FLOAT}});
  const Tensor x = RandomTensor(TensorShape({1 << 20}));
  absl::Duration last = device->stream()->BusyTime();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(RunOnCuda(device, def, {x}).ok());
    const absl::Duration now = device->stream()->BusyTime();
    EXPECT_GE(now, last);
    last = now;
  }
  EXPECT_GT(last, absl::ZeroDuration());
}

TEST_F(CudaBusyTimeTest, TimerReusesABoundedPoolOfEvents) {
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  void* buffer = nullptr;
  constexpr size_t kBytes = 16 << 20;
  ASSERT_EQ(cudaMalloc(&buffer, kBytes), cudaSuccess);
  {
    se::cuda::KernelBusyTimer timer;
    // Far more intervals than the pending bound, enqueued without waiting.
    for (int i = 0; i < 1000; ++i) {
      timer.Begin(stream);
      ASSERT_EQ(cudaMemsetAsync(buffer, i & 0xff, kBytes, stream), cudaSuccess);
      timer.End(stream);
    }
    // Nested and repeated Begins form one interval.
    timer.Begin(stream);
    timer.Begin(stream);
    ASSERT_EQ(cudaMemsetAsync(buffer, 0, kBytes, stream), cudaSuccess);
    timer.End(stream);
    timer.End(stream);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_GT(timer.BusyTime(), absl::ZeroDuration());
    EXPECT_LE(timer.EventsCreated(), 2 * se::cuda::KernelBusyTimer::kMaxPendingIntervals + 2);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  }
  cudaFree(buffer);
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace minitf
