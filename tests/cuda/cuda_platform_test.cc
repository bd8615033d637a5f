// Tests of the CUDA platform's executor, streams and events, with the
// properties the SimGPU platform's tests check: memory accounting and
// failure past capacity, copies, stream order, cross-stream waits, events,
// host callbacks and the stream error state. Skipped without a GPU.
#include <cstring>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platform/mutex.h"
#include "stream/blas.h"
#include "stream/event.h"
#include "stream/platform_manager.h"
#include "stream/stream.h"
#include "stream/stream_executor.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf::se {
namespace {

using ::testing::HasSubstr;
using test::VisibleCudaDevices;

class CudaPlatformTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
    executor_ = *(*PlatformManager::PlatformWithName("CUDA"))->ExecutorForDevice(0);
  }

  // `count` floats of device memory, freed by the test's end.
  DeviceMemory<float> AllocateFloats(int64_t count) {
    DeviceMemoryBase mem = executor_->Allocate(count * sizeof(float));
    EXPECT_FALSE(mem.is_null());
    allocations_.push_back(mem);
    return DeviceMemory<float>(mem);
  }

  void TearDown() override {
    for (DeviceMemoryBase& mem : allocations_) executor_->Deallocate(&mem);
  }

  StreamExecutor* executor_ = nullptr;
  std::vector<DeviceMemoryBase> allocations_;
};

TEST_F(CudaPlatformTest, DescribesTheDevice) {
  const DeviceDescription& d = executor_->GetDeviceDescription();
  EXPECT_EQ(d.platform, "CUDA");
  EXPECT_EQ(d.ordinal, 0);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.total_memory, 0);
  // "0000:17:00.0"
  ASSERT_EQ(d.pci_bus_id.size(), 12u) << d.pci_bus_id;
  EXPECT_EQ(d.pci_bus_id[4], ':');
  EXPECT_EQ(d.pci_bus_id[10], '.');
  EXPECT_EQ(executor_->device_ordinal(), 0);
  EXPECT_EQ(executor_->platform()->Name(), "CUDA");
}

TEST_F(CudaPlatformTest, TracksMemoryInUseAndKnowsItsPointers) {
  const int64_t before = executor_->DeviceMemoryInUse();
  DeviceMemoryBase mem = executor_->Allocate(1 << 20);
  ASSERT_FALSE(mem.is_null());
  EXPECT_EQ(executor_->DeviceMemoryInUse(), before + (1 << 20));
  EXPECT_TRUE(executor_->IsDeviceMemory(mem.opaque()));
  int host_value = 0;
  EXPECT_FALSE(executor_->IsDeviceMemory(&host_value));
  executor_->Deallocate(&mem);
  EXPECT_TRUE(mem.is_null());
  EXPECT_EQ(executor_->DeviceMemoryInUse(), before);
}

TEST_F(CudaPlatformTest, AllocationPastCapacityReturnsNullAndLeavesNoError) {
  const int64_t too_much = executor_->GetDeviceDescription().total_memory * 2;
  DeviceMemoryBase mem = executor_->Allocate(too_much);
  EXPECT_TRUE(mem.is_null());
  // The failure is not left behind for the next call to report.
  std::unique_ptr<Stream> stream = *executor_->CreateStream();
  DeviceMemory<float> buf = AllocateFloats(4);
  EXPECT_TRUE(stream->MemZero(&buf, 16).ok());
  EXPECT_TRUE(stream->BlockHostUntilDone().ok());
}

TEST_F(CudaPlatformTest, SynchronousCopiesRoundTrip) {
  std::vector<float> src = {1, 2, 3, 4, 5, 6, 7, 8};
  DeviceMemory<float> a = AllocateFloats(8);
  DeviceMemory<float> b = AllocateFloats(8);
  ASSERT_TRUE(executor_->SynchronousMemcpyH2D(src.data(), 32, &a).ok());
  ASSERT_TRUE(executor_->SynchronousMemcpyD2D(a, 32, &b).ok());
  std::vector<float> dst(8, 0);
  ASSERT_TRUE(executor_->SynchronousMemcpyD2H(b, 32, dst.data()).ok());
  EXPECT_EQ(dst, src);
}

TEST_F(CudaPlatformTest, StreamRunsItsWorkInOrder) {
  std::unique_ptr<Stream> stream = *executor_->CreateStream();
  constexpr int kN = 1 << 20;
  float* host = static_cast<float*>(executor_->HostMemoryAllocate(kN * sizeof(float)));
  ASSERT_NE(host, nullptr);
  for (int i = 0; i < kN; ++i) host[i] = static_cast<float>(i);
  DeviceMemory<float> a = AllocateFloats(kN);
  DeviceMemory<float> b = AllocateFloats(kN);
  // Each step reads what the step before wrote.
  ASSERT_TRUE(stream->Memcpy(&a, host, kN * sizeof(float)).ok());
  ASSERT_TRUE(stream->Memcpy(&b, a, kN * sizeof(float)).ok());
  ASSERT_TRUE(stream->Memset32(&a, 0x3f800000u, kN * sizeof(float)).ok());  // 1.0f
  ASSERT_TRUE(stream->Memcpy(host, b, kN * sizeof(float)).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  for (int i = 0; i < kN; i += 4099) ASSERT_EQ(host[i], static_cast<float>(i));
  ASSERT_TRUE(stream->Memcpy(host, a, 16).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(host[0], 1.0f);
  EXPECT_EQ(host[3], 1.0f);
  executor_->HostMemoryDeallocate(host, kN * sizeof(float));
}

TEST_F(CudaPlatformTest, WaitForOrdersWorkAcrossStreams) {
  std::unique_ptr<Stream> producer = *executor_->CreateStream();
  std::unique_ptr<Stream> consumer = *executor_->CreateStream();
  constexpr int kN = 1 << 24;
  DeviceMemory<float> big = AllocateFloats(kN);
  DeviceMemory<float> result = AllocateFloats(kN);
  // Keeps the producer busy, then writes the value the consumer must see.
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(producer->MemZero(&big, kN * sizeof(float)).ok());
  ASSERT_TRUE(producer->Memset32(&big, 0x40000000u, kN * sizeof(float)).ok());  // 2.0f
  ASSERT_TRUE(consumer->WaitFor(producer.get()).ok());
  ASSERT_TRUE(consumer->Memcpy(&result, big, kN * sizeof(float)).ok());
  std::vector<float> host(4);
  DeviceMemoryBase tail(result.base() + kN - 4, 16);
  ASSERT_TRUE(consumer->Memcpy(host.data(), tail, 16).ok());
  ASSERT_TRUE(consumer->BlockHostUntilDone().ok());
  EXPECT_THAT(host, ::testing::Each(2.0f));
}

TEST_F(CudaPlatformTest, EventsReportTheirProgressAndOrderStreams) {
  std::unique_ptr<Stream> a = *executor_->CreateStream();
  std::unique_ptr<Stream> b = *executor_->CreateStream();
  std::unique_ptr<Event> event = *executor_->CreateEvent();
  EXPECT_EQ(event->PollForStatus(), Event::Status::kUnknown);
  EXPECT_EQ(event->WaitForCompletion().code(), absl::StatusCode::kFailedPrecondition);

  constexpr int kN = 1 << 22;
  DeviceMemory<float> buf = AllocateFloats(kN);
  ASSERT_TRUE(a->Memset32(&buf, 0x40400000u, kN * sizeof(float)).ok());  // 3.0f
  ASSERT_TRUE(a->RecordEvent(event.get()).ok());
  ASSERT_TRUE(b->WaitFor(event.get()).ok());
  float value = 0;
  DeviceMemoryBase last(buf.base() + kN - 1, 4);
  ASSERT_TRUE(b->Memcpy(&value, last, 4).ok());
  ASSERT_TRUE(event->WaitForCompletion().ok());
  EXPECT_EQ(event->PollForStatus(), Event::Status::kComplete);
  ASSERT_TRUE(b->BlockHostUntilDone().ok());
  EXPECT_EQ(value, 3.0f);
}

TEST_F(CudaPlatformTest, HostCallbacksRunInStreamOrderAndMayUseCuda) {
  std::unique_ptr<Stream> stream = *executor_->CreateStream();
  std::vector<float> src = {4, 5, 6, 7};
  DeviceMemory<float> buf = AllocateFloats(4);
  std::vector<float> seen(4, 0);
  std::vector<int> order;
  Mutex mu;
  ASSERT_TRUE(stream->Memcpy(&buf, src.data(), 16).ok());
  ASSERT_TRUE(stream->DoHostCallback([&] {
    // A synchronous copy from inside a callback: legal on the worker thread.
    EXPECT_TRUE(executor_->SynchronousMemcpyD2H(buf, 16, seen.data()).ok());
    MutexLock lock(&mu);
    order.push_back(1);
  }).ok());
  ASSERT_TRUE(stream->DoHostCallback([&] {
    MutexLock lock(&mu);
    order.push_back(2);
  }).ok());
  HostKernel kernel;
  kernel.name = "append";
  kernel.body = [&] {
    MutexLock lock(&mu);
    order.push_back(3);
    return absl::OkStatus();
  };
  ASSERT_TRUE(stream->LaunchHostKernel(std::move(kernel)).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(seen, src);
  MutexLock lock(&mu);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_F(CudaPlatformTest, FailedCallbackPutsTheStreamInErrorAndLaterCallbacksStillRun) {
  std::unique_ptr<Stream> stream = *executor_->CreateStream();
  ASSERT_TRUE(stream->DoHostCallbackWithStatus([] {
    return absl::DataLossError("callback failed");
  }).ok());
  EXPECT_EQ(stream->BlockHostUntilDone().code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(stream->ok());
  DeviceMemory<float> buf = AllocateFloats(4);
  EXPECT_EQ(stream->MemZero(&buf, 16).code(), absl::StatusCode::kDataLoss);
  Notification ran;
  EXPECT_EQ(stream->DoHostCallback([&] { ran.Notify(); }).code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
  HostKernel kernel;
  kernel.name = "skipped";
  bool kernel_ran = false;
  kernel.body = [&] {
    kernel_ran = true;
    return absl::OkStatus();
  };
  EXPECT_FALSE(stream->LaunchHostKernel(std::move(kernel)).ok());
  EXPECT_FALSE(stream->BlockHostUntilDone().ok());
  EXPECT_FALSE(kernel_ran);
}

TEST_F(CudaPlatformTest, FailedHostKernelNamesTheKernel) {
  std::unique_ptr<Stream> stream = *executor_->CreateStream();
  HostKernel kernel;
  kernel.name = "broken";
  kernel.body = [] { return absl::InternalError("no"); };
  ASSERT_TRUE(stream->LaunchHostKernel(std::move(kernel)).ok());
  const absl::Status s = stream->BlockHostUntilDone();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("broken"));
}

TEST_F(CudaPlatformTest, CudaErrorsAreReportedByName) {
  std::unique_ptr<Stream> stream = *executor_->CreateStream();
  DeviceMemoryBase bogus(reinterpret_cast<void*>(0x10), 16);
  float host[4] = {};
  const absl::Status s = stream->Memcpy(host, bogus, 16);
  if (s.ok()) {
    // Some drivers find the bad address only when the copy runs.
    EXPECT_FALSE(stream->BlockHostUntilDone().ok());
    return;
  }
  EXPECT_THAT(s.message(), HasSubstr("cudaError"));
  EXPECT_THAT(s.message(), HasSubstr("cudaMemcpyAsync"));
  EXPECT_FALSE(stream->ok());
}

TEST_F(CudaPlatformTest, BlasGemmMatchesAHandComputedProduct) {
  std::unique_ptr<Stream> stream = *executor_->CreateStream();
  // Column-major A (2x3), B (3x2): C = A * B (2x2).
  const std::vector<float> a = {1, 4, 2, 5, 3, 6};
  const std::vector<float> b = {7, 9, 11, 8, 10, 12};
  DeviceMemory<float> da = AllocateFloats(6), db = AllocateFloats(6), dc = AllocateFloats(4);
  ASSERT_TRUE(stream->Memcpy(&da, a.data(), 24).ok());
  ASSERT_TRUE(stream->Memcpy(&db, b.data(), 24).ok());
  BlasSupport* blas = executor_->AsBlas();
  ASSERT_NE(blas, nullptr);
  ASSERT_TRUE(blas->DoBlasGemm(stream.get(), blas::Transpose::kNoTranspose,
                               blas::Transpose::kNoTranspose, 2, 2, 3, 1.0f, da, 2, db, 3, 0.0f,
                               &dc, 2)
                  .ok());
  std::vector<float> c(4);
  ASSERT_TRUE(stream->Memcpy(c.data(), dc, 16).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(c, (std::vector<float>{58, 139, 64, 154}));
}

}  // namespace
}  // namespace minitf::se
