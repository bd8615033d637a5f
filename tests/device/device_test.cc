#include "device/cpu_device.h"
#include "device/device_factory.h"
#include "device/device_mgr.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minitf {
namespace {

TEST(DeviceNameTest, ParsesFullAndShortForms) {
  for (const char* name : {"/job:localhost/replica:0/task:0/device:CPU:0", "/device:CPU:0",
                           "/cpu:0", "CPU:0"}) {
    auto parsed = ParseDeviceName(name);
    ASSERT_TRUE(parsed.ok()) << name;
    EXPECT_EQ(parsed->type, "CPU") << name;
    EXPECT_EQ(parsed->id, 0) << name;
  }
  auto any = ParseDeviceName("/device:GPU:*");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->id, -1);
  EXPECT_FALSE(ParseDeviceName("/device:CPU:x").ok());
  EXPECT_FALSE(ParseDeviceName("CPU:0:1").ok());
}

TEST(DeviceFactoryTest, CpuFactoryIsRegisteredAndCreatesDevices) {
  EXPECT_EQ(DeviceFactory::DevicePriority("CPU"), 60);
  EXPECT_THAT(DeviceFactory::GetDeviceTypes(), ::testing::Contains("CPU"));
  DeviceOptions options;
  options.device_count["CPU"] = 2;
  options.intra_op_parallelism_threads = 1;
  std::vector<std::unique_ptr<Device>> devices;
  ASSERT_TRUE(DeviceFactory::AddDevices(options, &devices).ok());
  ASSERT_GE(devices.size(), 2u);
  DeviceMgr mgr(std::move(devices));
  auto cpu1 = mgr.LookupDevice("CPU:1");
  ASSERT_TRUE(cpu1.ok());
  EXPECT_EQ((*cpu1)->name(), "/job:localhost/replica:0/task:0/device:CPU:1");
  auto missing = mgr.LookupDevice("CPU:7");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), ::testing::HasSubstr("CPU:0"));
  options.device_count["CPU"] = 0;
  std::vector<std::unique_ptr<Device>> none;
  EXPECT_FALSE(DeviceFactory::AddDevices(options, &none).ok());
}

TEST(ThreadPoolDeviceTest, AllocatesAlignedHostMemoryAndParallelizes) {
  ThreadPoolDevice device(0, 2, cpu_allocator());
  void* p = device.GetAllocator({})->AllocateRaw(Allocator::kAllocatorAlignment, 100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % Allocator::kAllocatorAlignment, 0u);
  device.GetAllocator({})->DeallocateRaw(p);
  std::vector<int> hits(1000, 0);
  device.intra_op_thread_pool()->ParallelFor(1000, 1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) ++hits[i];
  });
  for (int h : hits) EXPECT_EQ(h, 1);
}

}  // namespace
}  // namespace minitf
