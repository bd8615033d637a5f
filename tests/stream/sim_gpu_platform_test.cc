// The SimGPU platform: device descriptions, process-wide instances and the
// MINITF_SIMGPU variable, the cost model and the compute engine's exact
// utilisation accounting.
#include <cstdlib>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "stream/sim_gpu/sim_gpu_cost_model.h"
#include "stream/sim_gpu/sim_gpu_platform.h"
#include "stream/stream.h"

namespace minitf::se {
namespace {

std::unique_ptr<SimGPUPlatform> MakePlatform(const char* options) {
  absl::StatusOr<SimGPUOptions> parsed = ParseSimGPUOptions(options);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return *SimGPUPlatform::Create(*parsed);
}

HostKernel CostKernel(double flops, double device_bytes, double host_bytes,
                      std::function<absl::Status()> body = [] { return absl::OkStatus(); }) {
  HostKernel k;
  k.name = "Scripted";
  k.cost = {.flops = flops, .device_bytes = device_bytes, .host_bytes = host_bytes};
  k.body = std::move(body);
  return k;
}

TEST(SimGPUPlatformTest, DescribesEachDeviceWithAStableBusId) {
  auto platform = MakePlatform("count=2,memory=64MiB");
  EXPECT_EQ(platform->Name(), "SimGPU");
  EXPECT_EQ(platform->id(), SimGPUPlatform::Id());
  EXPECT_EQ(platform->VisibleDeviceCount(), 2);
  const DeviceDescription& d0 = (*platform->ExecutorForDevice(0))->GetDeviceDescription();
  const DeviceDescription& d1 = (*platform->ExecutorForDevice(1))->GetDeviceDescription();
  EXPECT_EQ(d0.pci_bus_id, "0000:50:00.0");
  EXPECT_EQ(d1.pci_bus_id, "0000:51:00.0");
  EXPECT_EQ(d0.name, "SimGPU (V100-like)");
  EXPECT_EQ(d0.platform, "SimGPU");
  EXPECT_EQ(d1.ordinal, 1);
  EXPECT_EQ(d0.total_memory, 64 << 20);
  EXPECT_EQ(d0.peak_tflops, 15.7);
  EXPECT_EQ(d0.memory_bandwidth_gbps, 900);
  EXPECT_EQ(d0.pcie_bandwidth_gbps, 12);
  EXPECT_EQ(*platform->ExecutorForDevice(1), *platform->ExecutorForDevice(1));
  EXPECT_EQ(platform->ExecutorForDevice(2).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(platform->ExecutorForDevice(-1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*platform->ExecutorForDevice(0))->AsDnn(), nullptr);
  EXPECT_NE((*platform->ExecutorForDevice(0))->AsBlas(), nullptr);
}

TEST(SimGPUPlatformTest, CreateRejectsBadOptions) {
  SimGPUOptions o;
  o.count = -1;
  EXPECT_EQ(SimGPUPlatform::Create(o).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GetSimGPUPlatform("count=x").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SimGPUPlatformTest, DefaultInstanceFollowsMinitfSimgpu) {
  ASSERT_EQ(setenv("MINITF_SIMGPU", "memory=lots", 1), 0);
  absl::StatusOr<SimGPUPlatform*> bad = GetSimGPUPlatform("");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("MINITF_SIMGPU"), absl::string_view::npos)
      << bad.status();

  ASSERT_EQ(setenv("MINITF_SIMGPU", "memory=32MiB,mode=functional", 1), 0);
  absl::StatusOr<SimGPUPlatform*> from_env = GetSimGPUPlatform("");
  ASSERT_TRUE(from_env.ok()) << from_env.status();
  EXPECT_EQ((*from_env)->options().memory_bytes, 32 << 20);
  // The same configuration named explicitly is the same instance.
  EXPECT_EQ(*GetSimGPUPlatform("mode=functional,memory=32MiB"), *from_env);
  unsetenv("MINITF_SIMGPU");
  EXPECT_EQ((*GetSimGPUPlatform(""))->options(), SimGPUOptions());
}

TEST(SimGPUPlatformTest, CostModelFollowsTheFormula) {
  SimGPUOptions o = *ParseSimGPUOptions("tflops=2,hbm_gbps=4,pcie_gbps=8,launch_us=3");
  // 3 us + 4e6 flop / 2e12 flop/s + 8e3 B / 4e9 B/s + 16e3 B / 8e9 B/s.
  EXPECT_EQ(ModeledKernelTime(o, {.flops = 4e6, .device_bytes = 8e3, .host_bytes = 16e3}),
            absl::Microseconds(3) + absl::Microseconds(2) + absl::Microseconds(2) +
                absl::Microseconds(2));
  EXPECT_EQ(ModeledKernelTime(o, {}), absl::Microseconds(3));
  EXPECT_EQ(ModeledTransferTime(o, 8000, /*crosses_pcie=*/true), absl::Microseconds(1));
  EXPECT_EQ(ModeledTransferTime(o, 8000, /*crosses_pcie=*/false), absl::Microseconds(2));
}

// Three kernels of known cost on two streams, in timing mode: the device's
// busy time is exactly the sum of the modeled times, and each stream's is
// exactly its own kernels' sum. With tflops=1, hbm_gbps=1, pcie_gbps=1 and
// launch_us=1 every term is a whole number of nanoseconds.
// Bookkeeping kernels (a Variable's buffer hand-out) must run even when
// the arithmetic is skipped; they still hold the engine for the model.
TEST(SimGPUPlatformTest, TimingModeRunsBodiesMarkedRunInTimingMode) {
  auto platform = MakePlatform("memory=1MiB,tflops=1,hbm_gbps=1,pcie_gbps=1,launch_us=1,"
                               "mode=timing");
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  auto stream = *gpu->CreateStream();
  bool skipped_ran = false;
  bool marked_ran = false;
  ASSERT_TRUE(stream->LaunchHostKernel(CostKernel(0, 0, 0, [&] {
                     skipped_ran = true;
                     return absl::OkStatus();
                   })).ok());
  HostKernel marked = CostKernel(2e6, 0, 0, [&] {
    marked_ran = true;
    return absl::OkStatus();
  });
  marked.run_in_timing_mode = true;
  ASSERT_TRUE(stream->LaunchHostKernel(std::move(marked)).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_FALSE(skipped_ran);
  EXPECT_TRUE(marked_ran);
  // 1000 ns launch each + 2000 ns of flops; the body's own time is far
  // below a millisecond, so the charge is at least the model and small.
  EXPECT_GE(gpu->DeviceBusyTime(), absl::Nanoseconds(4000));
  EXPECT_LT(gpu->DeviceBusyTime(), absl::Milliseconds(100));
}

TEST(SimGPUPlatformTest, TimingModeAccountsExactlyTheModeledTime) {
  auto platform = MakePlatform("memory=1MiB,tflops=1,hbm_gbps=1,pcie_gbps=1,launch_us=1,"
                               "mode=timing");
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  auto s1 = *gpu->CreateStream();
  auto s2 = *gpu->CreateStream();
  bool body_ran = false;
  // 1000 ns launch + 2000 ns flops + 1000 ns device bytes = 4000 ns.
  ASSERT_TRUE(s1->LaunchHostKernel(CostKernel(2e6, 1000, 0, [&] {
                body_ran = true;
                return absl::OkStatus();
              })).ok());
  // 1000 + 1000 ns flops + 500 ns host bytes = 2500 ns.
  ASSERT_TRUE(s2->LaunchHostKernel(CostKernel(1e6, 0, 500)).ok());
  // 1000 + 3000 ns device bytes = 4000 ns.
  ASSERT_TRUE(s1->LaunchHostKernel(CostKernel(0, 3000, 0)).ok());
  // Copies take time on their stream but not the engine.
  std::vector<char> host(1024);
  DeviceMemoryBase buf = gpu->Allocate(1024);
  ASSERT_TRUE(s2->Memcpy(&buf, host.data(), 1024).ok());
  ASSERT_TRUE(s2->Memcpy(host.data(), buf, 1024).ok());
  ASSERT_TRUE(s1->BlockHostUntilDone().ok());
  ASSERT_TRUE(s2->BlockHostUntilDone().ok());

  EXPECT_FALSE(body_ran);  // Timing mode skips the arithmetic.
  EXPECT_EQ(gpu->DeviceBusyTime(), absl::Nanoseconds(10500));
  EXPECT_EQ(s1->BusyTime(), absl::Nanoseconds(8000));
  EXPECT_EQ(s2->BusyTime(), absl::Nanoseconds(2500));
  const SimGPUOptions& o = platform->options();
  EXPECT_EQ(gpu->DeviceBusyTime(), ModeledKernelTime(o, {2e6, 1000, 0}) +
                                       ModeledKernelTime(o, {1e6, 0, 500}) +
                                       ModeledKernelTime(o, {0, 3000, 0}));
  gpu->Deallocate(&buf);
}

TEST(SimGPUPlatformTest, ComputeModeRunsTheBodyAndChargesAtLeastTheModeledTime) {
  auto platform = MakePlatform("memory=1MiB,tflops=1,launch_us=50,mode=compute");
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  auto stream = *gpu->CreateStream();
  int value = 0;
  ASSERT_TRUE(stream->LaunchHostKernel(CostKernel(1e6, 0, 0, [&] {
                value = 1;
                return absl::OkStatus();
              })).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(value, 1);
  const absl::Duration modeled = ModeledKernelTime(platform->options(), {.flops = 1e6});
  EXPECT_GE(gpu->DeviceBusyTime(), modeled);
  EXPECT_EQ(stream->BusyTime(), gpu->DeviceBusyTime());
}

TEST(SimGPUPlatformTest, FunctionalModeRunsTheBody) {
  auto platform = MakePlatform("memory=1MiB,mode=functional");
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  auto stream = *gpu->CreateStream();
  int value = 0;
  ASSERT_TRUE(stream->LaunchHostKernel(CostKernel(1e15, 0, 0, [&] {
                value = 1;
                return absl::OkStatus();
              })).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(value, 1);
}

TEST(SimGPUPlatformTest, StreamsOfOneDeviceShareItsEngine) {
  auto platform = MakePlatform("memory=1MiB,mode=timing,launch_us=1");
  auto* gpu = *platform->SimGPUExecutorForDevice(0);
  std::vector<std::unique_ptr<Stream>> streams;
  for (int i = 0; i < 3; ++i) streams.push_back(*gpu->CreateStream());
  for (int round = 0; round < 4; ++round) {
    for (auto& s : streams) ASSERT_TRUE(s->LaunchHostKernel(CostKernel(0, 0, 0)).ok());
  }
  ASSERT_TRUE(gpu->SynchronizeAllActivity().ok());
  EXPECT_EQ(gpu->KernelCount(), 12);
  EXPECT_EQ(gpu->DeviceBusyTime(), absl::Microseconds(12));
  for (auto& s : streams) EXPECT_EQ(s->BusyTime(), absl::Microseconds(4));
}

}  // namespace
}  // namespace minitf::se
