// Strict SimGPU: device memory is as unreachable from host code as cudaMalloc
// memory, on every machine (with or without memory protection keys). A host
// thread that dereferences a device pointer dies (SIGSEGV); the stream's
// copies, memsets and kernels reach the memory; a host callback does not;
// `strict=false` turns the protection off.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "stream/device_memory_protection.h"
#include "stream/kernel.h"
#include "stream/sim_gpu/sim_gpu_executor.h"
#include "stream/sim_gpu/sim_gpu_platform.h"
#include "stream/stream.h"
#include "tests/testlib/fault_death.h"

namespace minitf::se {
namespace {

constexpr uint64_t kBytes = 4096;

std::unique_ptr<SimGPUPlatform> MakePlatform(const char* options) {
  return *SimGPUPlatform::Create(*ParseSimGPUOptions(options));
}

// Reads one byte through a pointer the compiler must not assume anything of.
int ReadByte(const void* p) { return *static_cast<const volatile char*>(p); }

class DeviceMemoryProtectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    platform_ = MakePlatform("memory=64MiB,mode=functional");
    gpu_ = static_cast<SimGPUExecutor*>(*platform_->ExecutorForDevice(0));
    buffer_ = gpu_->Allocate(kBytes);
    ASSERT_FALSE(buffer_.is_null());
  }
  void TearDown() override {
    if (gpu_ != nullptr) gpu_->Deallocate(&buffer_);
  }

  std::unique_ptr<SimGPUPlatform> platform_;
  SimGPUExecutor* gpu_ = nullptr;
  DeviceMemoryBase buffer_;
};

using DeviceMemoryProtectionDeathTest = DeviceMemoryProtectionTest;

TEST_F(DeviceMemoryProtectionDeathTest, HostReadOfDeviceMemoryFaults) {
  ASSERT_TRUE(gpu_->DeviceMemoryProtectedFromHost());
  EXPECT_EXIT(ReadByte(buffer_.opaque()), test::DiedOfFault, test::kFaultReport);
}

TEST_F(DeviceMemoryProtectionDeathTest, HostWriteOfDeviceMemoryFaults) {
  EXPECT_EXIT(std::memset(buffer_.opaque(), 1, 16), test::DiedOfFault, test::kFaultReport);
}

TEST_F(DeviceMemoryProtectionDeathTest, HostCallbackCannotReadDeviceMemory) {
  // A host callback runs on the stream's worker thread, but as host code.
  EXPECT_EXIT(
      {
        auto stream = *gpu_->CreateStream();
        const void* device = buffer_.opaque();
        (void)stream->DoHostCallback([device] { ReadByte(device); });
        (void)stream->BlockHostUntilDone();
      },
      test::DiedOfFault, test::kFaultReport);
}

TEST_F(DeviceMemoryProtectionTest, StreamCopiesAndMemsetsReachDeviceMemory) {
  auto stream = *gpu_->CreateStream();
  std::vector<uint32_t> in(kBytes / 4), out(kBytes / 4, 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint32_t>(i * 7);
  ASSERT_TRUE(stream->Memcpy(&buffer_, in.data(), kBytes).ok());
  ASSERT_TRUE(stream->Memcpy(out.data(), buffer_, kBytes).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(out, in);

  ASSERT_TRUE(stream->Memset32(&buffer_, 0xabcdef01u, kBytes).ok());
  ASSERT_TRUE(stream->Memcpy(out.data(), buffer_, kBytes).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(out, std::vector<uint32_t>(kBytes / 4, 0xabcdef01u));
}

TEST_F(DeviceMemoryProtectionTest, KernelsReadAndWriteDeviceMemory) {
  auto stream = *gpu_->CreateStream();
  ASSERT_TRUE(stream->MemZero(&buffer_, kBytes).ok());
  void* device = buffer_.opaque();
  HostKernel kernel;
  kernel.name = "Iota";
  kernel.body = [device] {
    // A kernel reaches device memory through the address its thread may use.
    auto* words = static_cast<uint32_t*>(DeviceAddressForThisThread(device));
    for (uint32_t i = 0; i < kBytes / 4; ++i) words[i] += i;
    return absl::OkStatus();
  };
  ASSERT_TRUE(stream->LaunchHostKernel(std::move(kernel)).ok());
  std::vector<uint32_t> out(kBytes / 4);
  ASSERT_TRUE(stream->Memcpy(out.data(), buffer_, kBytes).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  for (uint32_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], i) << "at " << i;
}

TEST_F(DeviceMemoryProtectionTest, SynchronousCopiesReachDeviceMemory) {
  const std::vector<char> in(kBytes, 'x');
  std::vector<char> out(kBytes, 0);
  ASSERT_TRUE(gpu_->SynchronousMemcpyH2D(in.data(), kBytes, &buffer_).ok());
  ASSERT_TRUE(gpu_->SynchronousMemcpyD2H(buffer_, kBytes, out.data()).ok());
  EXPECT_EQ(out, in);
}

TEST_F(DeviceMemoryProtectionDeathTest, ScopedAccessOpensDeviceMemoryForItsScopeOnly) {
  {
    ScopedDeviceMemoryAccess access;
    char* real = static_cast<char*>(DeviceAddressForThisThread(buffer_.opaque()));
    std::memset(real, 5, kBytes);
    EXPECT_EQ(ReadByte(real + kBytes - 1), 5);
    {
      ScopedDeviceMemoryAccess nested;
      EXPECT_EQ(ReadByte(DeviceAddressForThisThread(buffer_.opaque())), 5);
    }
    // The inner scope restored the outer scope's access, not none.
    EXPECT_EQ(ReadByte(DeviceAddressForThisThread(buffer_.opaque())), 5);
  }
  EXPECT_FALSE(ThisThreadHasDeviceMemoryAccess());
  EXPECT_EQ(DeviceAddressForThisThread(buffer_.opaque()), buffer_.opaque());
  EXPECT_EXIT(ReadByte(DeviceAddressForThisThread(buffer_.opaque())), test::DiedOfFault,
              test::kFaultReport);
}

TEST_F(DeviceMemoryProtectionDeathTest, HostReadThroughAHandedOutAddressFaultsAfterAKernelRan) {
  // The device's own work has run on this buffer; host code that then reads
  // it (a HostMemory argument left in device memory) still gets the tagged
  // address, and faults.
  EXPECT_TRUE(IsTaggedDeviceAddress(buffer_.opaque()));
  EXPECT_EXIT(
      {
        auto stream = *gpu_->CreateStream();
        (void)stream->MemZero(&buffer_, kBytes);
        (void)stream->BlockHostUntilDone();
        ReadByte(DeviceAddressForThisThread(buffer_.opaque()));
      },
      test::DiedOfFault, test::kFaultReport);
}

TEST(DeviceMemoryProtectionOffTest, NonStrictDeviceMemoryIsPlainHostMemory) {
  auto platform = MakePlatform("memory=64MiB,mode=functional,strict=false");
  auto* gpu = static_cast<SimGPUExecutor*>(*platform->ExecutorForDevice(0));
  DeviceMemoryBase buffer = gpu->Allocate(kBytes);
  ASSERT_FALSE(buffer.is_null());
  EXPECT_FALSE(gpu->DeviceMemoryProtectedFromHost());
  EXPECT_FALSE(IsTaggedDeviceAddress(buffer.opaque()));
  std::memset(buffer.opaque(), 3, kBytes);
  EXPECT_EQ(ReadByte(buffer.opaque()), 3);
  gpu->Deallocate(&buffer);
}

}  // namespace
}  // namespace minitf::se
