// GPUDevice and the GPU device factory on the SimGPU platform: what the
// factory creates (by default, with device_count, several devices,
// visible_device_list), what a device exposes (name, platform, stream and
// executor, bus id, allocators, thread pools), GPUDeviceContext copies, and
// the environment variables that configure devices (each test binary is its
// own process; every test restores what it sets).
#include "device/gpu/gpu_device.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"
#include "device/device_factory.h"
#include "device/gpu/gpu_process_state.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/tensor.h"
#include "runtime/types.h"
#include "stream/platform_manager.h"
#include "stream/sim_gpu/sim_gpu_stream.h"
#include "stream/sm_partition.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

// Small untimed devices; each string is its own process-wide SimGPU instance.
constexpr char kOneGPU[] = "memory=64MiB,mode=functional";
constexpr char kTwoGPUs[] = "count=2,memory=64MiB,mode=functional";

// Sets (or, for nullptr, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name); old != nullptr) old_ = old;
    if (value != nullptr) {
      setenv(name, value, /*overwrite=*/1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_.has_value()) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* const name_;
  std::optional<std::string> old_;
};

DeviceOptions Options(const std::string& simgpu) {
  DeviceOptions options;
  options.intra_op_parallelism_threads = 2;
  options.gpu_options.platform = "SimGPU";
  options.gpu_options.simgpu_options = simgpu;
  return options;
}

std::vector<GPUDevice*> GPUsOf(const std::vector<std::unique_ptr<Device>>& devices) {
  std::vector<GPUDevice*> gpus;
  for (const std::unique_ptr<Device>& d : devices) {
    if (auto* gpu = dynamic_cast<GPUDevice*>(d.get())) gpus.push_back(gpu);
  }
  return gpus;
}

// The device's four streams: compute, and the three copy directions.
std::vector<se::Stream*> StreamsOf(const GPUDevice* gpu) {
  const GPUDeviceContext* context = gpu->gpu_device_context();
  return {context->stream(), context->host_to_device_stream(), context->device_to_host_stream(),
          context->device_to_device_stream()};
}

// The physical description's bus id entry for `bus`.
std::string BusId(int bus) { return "pci bus id: 0000:" + std::to_string(bus) + ":00.0"; }

// Each test gets its own default GPUProcessState, so the shared allocator
// stacks it builds (and the memory they reserve) go away with the test.
class GPUDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { previous_ = GPUProcessState::SetDefault(&state_); }
  void TearDown() override { GPUProcessState::SetDefault(previous_); }

  // The devices `options` gives; fails the test on error.
  std::vector<std::unique_ptr<Device>> Devices(const DeviceOptions& options) {
    std::vector<std::unique_ptr<Device>> devices;
    const absl::Status s = DeviceFactory::AddDevices(options, &devices);
    EXPECT_TRUE(s.ok()) << s;
    return devices;
  }
  absl::Status CreateStatus(const DeviceOptions& options) {
    std::vector<std::unique_ptr<Device>> devices;
    return DeviceFactory::AddDevices(options, &devices);
  }

  GPUProcessState state_;
  GPUProcessState* previous_ = nullptr;
};

TEST_F(GPUDeviceTest, DefaultOptionsCreateOneSimGpuDeviceAfterTheCpu) {
  if (absl::StatusOr<se::Platform*> cuda = se::PlatformManager::PlatformWithName("CUDA");
      cuda.ok() && (*cuda)->VisibleDeviceCount() > 0) {
    GTEST_SKIP() << "a CUDA device is the default here";
  }
  ScopedEnv no_simgpu_env("MINITF_SIMGPU", nullptr);
  ScopedEnv no_platform_env("MINITF_GPU_PLATFORM", nullptr);
  DeviceOptions options;
  options.intra_op_parallelism_threads = 2;
  std::vector<std::unique_ptr<Device>> devices = Devices(options);
  ASSERT_THAT(devices, SizeIs(2));
  EXPECT_EQ(devices[0]->device_type(), DEVICE_CPU);
  std::vector<GPUDevice*> gpus = GPUsOf(devices);
  ASSERT_THAT(gpus, SizeIs(1));
  GPUDevice* gpu = gpus[0];
  EXPECT_EQ(gpu->name(), "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(gpu->device_type(), DEVICE_GPU);
  EXPECT_EQ(gpu->platform_name(), "SimGPU");
  EXPECT_THAT(gpu->attributes().physical_device_desc, HasSubstr(BusId(50)));
  EXPECT_THAT(gpu->attributes().physical_device_desc, HasSubstr("platform: SimGPU"));
  // The default device (16 GiB) less the 256 MiB reserve.
  EXPECT_EQ(gpu->attributes().memory_limit, (int64_t{16} << 30) - kGPUMemoryReserveBytes);
}

TEST_F(GPUDeviceTest, DeviceExposesItsStreamExecutorAndContextThroughGpuDeviceInfo) {
  std::vector<std::unique_ptr<Device>> devices = Devices(Options(kOneGPU));
  std::vector<GPUDevice*> gpus = GPUsOf(devices);
  ASSERT_THAT(gpus, SizeIs(1));
  GPUDevice* gpu = gpus[0];
  const GPUDeviceInfo* info = gpu->gpu_device_info();
  ASSERT_NE(info, nullptr);
  ASSERT_NE(info->stream, nullptr);
  ASSERT_NE(info->executor, nullptr);
  EXPECT_EQ(info->stream, gpu->compute_stream());
  EXPECT_EQ(info->executor, gpu->executor());
  EXPECT_EQ(info->default_context, gpu->device_context());
  EXPECT_EQ(gpu->device_context(), gpu->gpu_device_context());
  EXPECT_EQ(gpu->gpu_device_context()->stream(), gpu->compute_stream());
  EXPECT_EQ(info->gpu_id, 0);
  EXPECT_EQ(gpu->executor()->GetDeviceDescription().pci_bus_id, "0000:50:00.0");
  EXPECT_EQ(gpu->executor()->GetDeviceDescription().total_memory, int64_t{64} << 20);
  EXPECT_TRUE(gpu->Sync().ok());
}

TEST_F(GPUDeviceTest, StreamPriorityOptionGivesEveryStreamOfTheDeviceThatPriority) {
  for (se::StreamPriority priority :
       {se::StreamPriority::kLowest, se::StreamPriority::kDefault, se::StreamPriority::kHighest}) {
    SCOPED_TRACE(se::StreamPriorityName(priority));
    DeviceOptions options = Options(kOneGPU);
    options.gpu_options.stream_priority = priority;
    std::vector<std::unique_ptr<Device>> devices = Devices(options);
    std::vector<GPUDevice*> gpus = GPUsOf(devices);
    ASSERT_THAT(gpus, SizeIs(1));
    for (se::Stream* stream : StreamsOf(gpus[0])) {
      auto* sim = dynamic_cast<se::SimGPUStream*>(stream);
      ASSERT_NE(sim, nullptr);
      EXPECT_EQ(sim->priority(), priority);
    }
  }
}

TEST_F(GPUDeviceTest, SmFractionPutsEveryStreamOfTheDeviceInOneSmPartition) {
  DeviceOptions options = Options("memory=64MiB,mode=timing");
  options.gpu_options.sm_fraction = 0.25;
  std::vector<std::unique_ptr<Device>> devices = Devices(options);
  std::vector<GPUDevice*> gpus = GPUsOf(devices);
  ASSERT_THAT(gpus, SizeIs(1));
  EXPECT_DOUBLE_EQ(gpus[0]->sm_fraction(), 0.25);
  const se::SmPartition* partition = nullptr;
  for (se::Stream* stream : StreamsOf(gpus[0])) {
    auto* sim = dynamic_cast<se::SimGPUStream*>(stream);
    ASSERT_NE(sim, nullptr);
    ASSERT_NE(sim->partition(), nullptr);
    if (partition == nullptr) partition = sim->partition();
    EXPECT_EQ(sim->partition(), partition);
  }
  ASSERT_TRUE(gpus[0]->SetSmFraction(0.5).ok());
  EXPECT_DOUBLE_EQ(partition->fraction(), 0.5);
  EXPECT_DOUBLE_EQ(gpus[0]->sm_fraction(), 0.5);
}

TEST_F(GPUDeviceTest, SmFractionOutsideItsRangeOrWithoutTheSmModelIsRefused) {
  for (double bad : {-0.1, 1.5, std::nan("")}) {
    DeviceOptions options = Options("memory=64MiB,mode=timing");
    options.gpu_options.sm_fraction = bad;
    const absl::Status s = CreateStatus(options);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(s.message()), HasSubstr("sm_fraction")) << bad;
  }
  // Functional mode runs one kernel at a time: there are no SMs to share.
  DeviceOptions functional = Options(kOneGPU);
  functional.gpu_options.sm_fraction = 0.5;
  const absl::Status s = CreateStatus(functional);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("timing mode"));
}

TEST_F(GPUDeviceTest, ADeviceWithoutAnSmPartitionCannotBeGivenAShare) {
  std::vector<std::unique_ptr<Device>> devices = Devices(Options(kOneGPU));
  std::vector<GPUDevice*> gpus = GPUsOf(devices);
  ASSERT_THAT(gpus, SizeIs(1));
  EXPECT_DOUBLE_EQ(gpus[0]->sm_fraction(), 1.0);
  const absl::Status s = gpus[0]->SetSmFraction(0.5);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("GPU:0"));
}

TEST_F(GPUDeviceTest, DeviceCountZeroCreatesNoGpuAndNegativeIsAnError) {
  DeviceOptions options = Options(kOneGPU);
  options.device_count["GPU"] = 0;
  std::vector<std::unique_ptr<Device>> devices = Devices(options);
  EXPECT_THAT(GPUsOf(devices), SizeIs(0));
  EXPECT_THAT(devices, SizeIs(1));  // The CPU.

  options.device_count["GPU"] = -1;
  const absl::Status s = CreateStatus(options);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("device_count"));
}

TEST_F(GPUDeviceTest, CountTwoGivesGpu0AndGpu1OnConsecutiveBuses) {
  std::vector<std::unique_ptr<Device>> devices = Devices(Options(kTwoGPUs));
  std::vector<GPUDevice*> gpus = GPUsOf(devices);
  ASSERT_THAT(gpus, SizeIs(2));
  EXPECT_EQ(gpus[0]->name(), "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(gpus[1]->name(), "/job:localhost/replica:0/task:0/device:GPU:1");
  EXPECT_THAT(gpus[0]->attributes().physical_device_desc, HasSubstr(BusId(50)));
  EXPECT_THAT(gpus[1]->attributes().physical_device_desc, HasSubstr(BusId(51)));
  EXPECT_NE(gpus[0]->executor(), gpus[1]->executor());
  EXPECT_NE(gpus[0]->allocator_stack(), gpus[1]->allocator_stack());
  EXPECT_EQ(gpus[1]->gpu_device_info()->gpu_id, 1);

  DeviceOptions one = Options(kTwoGPUs);
  one.device_count["GPU"] = 1;
  devices = Devices(one);
  gpus = GPUsOf(devices);
  ASSERT_THAT(gpus, SizeIs(1));
  EXPECT_THAT(gpus[0]->attributes().physical_device_desc, HasSubstr(BusId(50)));
}

TEST_F(GPUDeviceTest, VisibleDeviceListSelectsAndReordersPlatformDevices) {
  DeviceOptions options = Options(kTwoGPUs);
  options.gpu_options.visible_device_list = "1,0";
  std::vector<std::unique_ptr<Device>> devices = Devices(options);
  std::vector<GPUDevice*> gpus = GPUsOf(devices);
  ASSERT_THAT(gpus, SizeIs(2));
  EXPECT_EQ(gpus[0]->name(), "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(gpus[0]->executor()->device_ordinal(), 1);
  EXPECT_THAT(gpus[0]->attributes().physical_device_desc, HasSubstr(BusId(51)));
  EXPECT_EQ(gpus[1]->executor()->device_ordinal(), 0);
  EXPECT_THAT(gpus[1]->attributes().physical_device_desc, HasSubstr(BusId(50)));

  options.gpu_options.visible_device_list = "1";
  devices = Devices(options);
  gpus = GPUsOf(devices);
  ASSERT_THAT(gpus, SizeIs(1));
  EXPECT_EQ(gpus[0]->name(), "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_THAT(gpus[0]->attributes().physical_device_desc, HasSubstr(BusId(51)));
}

TEST_F(GPUDeviceTest, VisibleDeviceListRejectsEntriesThatAreNotDistinctOrdinals) {
  for (const char* list : {"2", "0,0", "x", "-1", "0,", "1,,0"}) {
    SCOPED_TRACE(list);
    DeviceOptions options = Options(kTwoGPUs);
    options.gpu_options.visible_device_list = list;
    const absl::Status s = CreateStatus(options);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("visible_device_list"));
  }
}

TEST_F(GPUDeviceTest, MemoryLimitAboveTheDeviceFailsNamingTheDevice) {
  DeviceOptions options = Options(kOneGPU);
  options.gpu_options.memory_limit_bytes = int64_t{65} << 20;
  const absl::Status s = CreateStatus(options);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("SimGPU device 0"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(std::to_string(int64_t{65} << 20)));
}

// ---------------------------------------------------------------------------
// Allocators, thread pools.

TEST_F(GPUDeviceTest, OnHostAllocatorIsThePinnedHostBfcAndTheDefaultIsTheStackTop) {
  std::vector<std::unique_ptr<Device>> devices = Devices(Options(kOneGPU));
  GPUDevice* gpu = GPUsOf(devices).at(0);
  GPUAllocatorStack* stack = gpu->allocator_stack();
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(gpu->GetAllocator({.on_host = true}), stack->host_bfc());
  EXPECT_EQ(gpu->GetAllocator({}), stack->allocator());
  EXPECT_EQ(gpu->GetAllocator({}), stack->vmem());  // VMem is on by default.

  DeviceOptions no_vmem = Options(kTwoGPUs);
  no_vmem.gpu_options.vmem = false;
  devices = Devices(no_vmem);
  gpu = GPUsOf(devices).at(0);
  EXPECT_EQ(gpu->allocator_stack()->vmem(), nullptr);
  EXPECT_EQ(gpu->GetAllocator({}), gpu->allocator_stack()->device_bfc());
  EXPECT_EQ(gpu->GetAllocator({.on_host = true}), gpu->allocator_stack()->host_bfc());
}

TEST_F(GPUDeviceTest, DeviceSetsShareTheDefaultStackUnlessAllocatorsArePrivate) {
  std::vector<std::unique_ptr<Device>> first = Devices(Options(kOneGPU));
  std::vector<std::unique_ptr<Device>> second = Devices(Options(kOneGPU));
  GPUDevice* a = GPUsOf(first).at(0);
  GPUDevice* b = GPUsOf(second).at(0);
  EXPECT_EQ(a->executor(), b->executor());
  EXPECT_EQ(a->allocator_stack(), b->allocator_stack());
  absl::StatusOr<GPUAllocatorStack*> shared = state_.GetGPUAllocatorStack(a->executor(), {});
  ASSERT_TRUE(shared.ok()) << shared.status();
  EXPECT_EQ(a->allocator_stack(), *shared);

  DeviceOptions private_options = Options(kOneGPU);
  private_options.gpu_options.private_allocators = true;
  std::vector<std::unique_ptr<Device>> third = Devices(private_options);
  std::vector<std::unique_ptr<Device>> fourth = Devices(private_options);
  GPUDevice* c = GPUsOf(third).at(0);
  GPUDevice* d = GPUsOf(fourth).at(0);
  EXPECT_EQ(c->executor(), a->executor());
  EXPECT_NE(c->allocator_stack(), a->allocator_stack());
  EXPECT_NE(c->allocator_stack(), d->allocator_stack());
}

TEST_F(GPUDeviceTest, ThreadModeChoosesTheDevicePool) {
  DeviceOptions options = Options(kTwoGPUs);
  std::vector<std::unique_ptr<Device>> devices = Devices(options);
  for (GPUDevice* gpu : GPUsOf(devices)) EXPECT_EQ(gpu->tensorflow_device_thread_pool(), nullptr);

  options.gpu_options.thread_mode = "gpu_private";
  devices = Devices(options);
  std::vector<GPUDevice*> gpus = GPUsOf(devices);
  ASSERT_THAT(gpus, SizeIs(2));
  ASSERT_NE(gpus[0]->tensorflow_device_thread_pool(), nullptr);
  EXPECT_NE(gpus[0]->tensorflow_device_thread_pool(), gpus[1]->tensorflow_device_thread_pool());

  options.gpu_options.thread_mode = "gpu_shared";
  devices = Devices(options);
  gpus = GPUsOf(devices);
  ASSERT_THAT(gpus, SizeIs(2));
  ASSERT_NE(gpus[0]->tensorflow_device_thread_pool(), nullptr);
  EXPECT_EQ(gpus[0]->tensorflow_device_thread_pool(), gpus[1]->tensorflow_device_thread_pool());
}

// ---------------------------------------------------------------------------
// GPUDeviceContext copies.

absl::Status Wait(const std::function<void(StatusCallback)>& start) {
  absl::Notification done;
  absl::Status status;
  start([&](const absl::Status& s) {
    status = s;
    done.Notify();
  });
  done.WaitForNotification();
  return status;
}

absl::Status CopyToDevice(GPUDevice* gpu, const Tensor& cpu, Tensor* dev) {
  return Wait([&](StatusCallback done) {
    gpu->device_context()->CopyCPUTensorToDevice(&cpu, gpu, dev, std::move(done));
  });
}
absl::Status CopyToCpu(GPUDevice* gpu, const Tensor& dev, Tensor* cpu) {
  return Wait([&](StatusCallback done) {
    gpu->device_context()->CopyDeviceTensorToCPU(&dev, gpu, cpu, std::move(done));
  });
}
absl::Status CopyOnDevice(GPUDevice* gpu, const Tensor& from, Tensor* to) {
  return Wait([&](StatusCallback done) {
    gpu->gpu_device_context()->CopyTensorInSameDevice(&from, gpu, to, std::move(done));
  });
}

// A host tensor whose bytes are a pattern that differs per element; bools
// must hold 0 or 1.
Tensor Patterned(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  auto* bytes = static_cast<unsigned char*>(t.raw_data());
  for (size_t i = 0; i < t.TotalBytes(); ++i) {
    bytes[i] = static_cast<unsigned char>(dtype == DT_BOOL ? i % 3 == 0 : i * 37 + 11);
  }
  return t;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.TotalBytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
}

class GPUDeviceContextTest : public GPUDeviceTest {
 protected:
  void SetUp() override {
    GPUDeviceTest::SetUp();
    devices_ = Devices(Options(kOneGPU));
    gpu_ = GPUsOf(devices_).at(0);
  }
  void TearDown() override {
    devices_.clear();
    GPUDeviceTest::TearDown();
  }
  Tensor OnDevice(DataType dtype, const TensorShape& shape) {
    return Tensor(gpu_->GetAllocator({}), dtype, shape);
  }

  std::vector<std::unique_ptr<Device>> devices_;
  GPUDevice* gpu_ = nullptr;
};

TEST_F(GPUDeviceContextTest, HostToDeviceToHostKeepsEveryByte) {
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_BOOL}) {
    for (const TensorShape& shape :
         {TensorShape(), TensorShape({3, 5}), TensorShape({0, 3}), TensorShape({64, 1024})}) {
      SCOPED_TRACE(DataTypeString(dtype) + shape.DebugString());
      const Tensor host = Patterned(dtype, shape);
      Tensor dev = OnDevice(dtype, shape);
      ASSERT_TRUE(CopyToDevice(gpu_, host, &dev).ok());
      if (dev.TotalBytes() > 0) {
        EXPECT_TRUE(gpu_->executor()->IsDeviceMemory(dev.raw_data()));
      }
      Tensor back(dtype, shape);
      ASSERT_TRUE(CopyToCpu(gpu_, dev, &back).ok());
      EXPECT_TRUE(SameBytes(back, host));
    }
  }
  EXPECT_TRUE(gpu_->Sync().ok());
}

TEST_F(GPUDeviceContextTest, CopyInSameDeviceKeepsEveryByte) {
  for (DataType dtype : {DT_FLOAT, DT_INT64, DT_BOOL}) {
    SCOPED_TRACE(DataTypeString(dtype));
    const Tensor host = Patterned(dtype, {7, 9});
    Tensor first = OnDevice(dtype, {7, 9});
    Tensor second = OnDevice(dtype, {7, 9});
    ASSERT_TRUE(CopyToDevice(gpu_, host, &first).ok());
    ASSERT_TRUE(CopyOnDevice(gpu_, first, &second).ok());
    EXPECT_NE(first.raw_data(), second.raw_data());
    Tensor back(dtype, {7, 9});
    ASSERT_TRUE(CopyToCpu(gpu_, second, &back).ok());
    EXPECT_TRUE(SameBytes(back, host));
  }
  Tensor empty = OnDevice(DT_FLOAT, {0});
  Tensor empty_too = OnDevice(DT_FLOAT, {0});
  EXPECT_TRUE(CopyOnDevice(gpu_, empty, &empty_too).ok());
  EXPECT_TRUE(gpu_->Sync().ok());
}

TEST_F(GPUDeviceContextTest, CopiesBetweenTensorsOfDifferentSizeOrTypeAreInvalidArgument) {
  const Tensor host = Patterned(DT_FLOAT, {4});
  Tensor bigger = OnDevice(DT_FLOAT, {5});
  Tensor other_type = OnDevice(DT_INT32, {4});
  Tensor dev = OnDevice(DT_FLOAT, {4});
  Tensor host_bigger(DT_FLOAT, {5});
  const std::vector<std::pair<std::string, absl::Status>> results = {
      {"to device, size", CopyToDevice(gpu_, host, &bigger)},
      {"to device, type", CopyToDevice(gpu_, host, &other_type)},
      {"to host, size", CopyToCpu(gpu_, dev, &host_bigger)},
      {"same device, size", CopyOnDevice(gpu_, dev, &bigger)},
  };
  for (const auto& [what, s] : results) {
    SCOPED_TRACE(what);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(gpu_->name()));
  }
  EXPECT_TRUE(gpu_->Sync().ok());
}

// ---------------------------------------------------------------------------
// Environment variables.

TEST_F(GPUDeviceTest, MalformedEnvironmentVariablesFailDeviceCreationNamingTheVariable) {
  const std::vector<std::pair<const char*, const char*>> bad = {
      {"TF_GPU_THREAD_MODE", "bogus"},        {"TF_FORCE_GPU_ALLOW_GROWTH", "maybe"},
      {"TF_CUDA_HOST_MEM_LIMIT_IN_MB", "-3"}, {"TF_CUDA_HOST_MEM_LIMIT_IN_MB", "lots"},
      {"TF_GPU_VMEM", "sometimes"},           {"MINITF_GPU_PLATFORM", "TPU"},
  };
  for (const auto& [name, value] : bad) {
    SCOPED_TRACE(std::string(name) + "=" + value);
    ScopedEnv env(name, value);
    absl::StatusOr<GPUOptions> applied = ApplyGPUEnvironment(GPUOptions());
    EXPECT_EQ(applied.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(applied.status().message()), HasSubstr(name));
    DeviceOptions unpinned = Options(kOneGPU);
    unpinned.gpu_options.platform.clear();  // So that MINITF_GPU_PLATFORM is read.
    const absl::Status s = CreateStatus(unpinned);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(name));
  }
  EXPECT_TRUE(CreateStatus(Options(kOneGPU)).ok()) << "a variable was not restored";
}

TEST_F(GPUDeviceTest, EnvironmentVariablesOverrideTheOptions) {
  ScopedEnv growth("TF_FORCE_GPU_ALLOW_GROWTH", "true");
  ScopedEnv vmem("TF_GPU_VMEM", "false");
  ScopedEnv host_limit("TF_CUDA_HOST_MEM_LIMIT_IN_MB", "100");
  ScopedEnv thread_mode("TF_GPU_THREAD_MODE", "gpu_private");
  absl::StatusOr<GPUOptions> applied = ApplyGPUEnvironment(GPUOptions());
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_TRUE(applied->allow_growth);
  EXPECT_FALSE(applied->vmem);
  EXPECT_EQ(applied->host_memory_limit_mb, 100);
  EXPECT_EQ(applied->thread_mode, "gpu_private");

  DeviceOptions options = Options(kOneGPU);
  options.gpu_options.private_allocators = true;  // A stack built now, with the variables.
  std::vector<std::unique_ptr<Device>> devices = Devices(options);
  GPUDevice* gpu = GPUsOf(devices).at(0);
  EXPECT_EQ(gpu->allocator_stack()->vmem(), nullptr);
  EXPECT_EQ(gpu->allocator_stack()->host_bfc()->GetPoolStats().memory_limit, size_t{100} << 20);
  EXPECT_NE(gpu->tensorflow_device_thread_pool(), nullptr);
  // Under allow_growth a small allocation reserves a small region, not the
  // whole limit.
  Allocator* allocator = gpu->GetAllocator({});
  void* p = allocator->AllocateRaw(Allocator::kAllocatorAlignment, 1024);
  ASSERT_NE(p, nullptr);
  EXPECT_LT(gpu->allocator_stack()->device_bfc()->GetPoolStats().pool_bytes, size_t{16} << 20);
  allocator->DeallocateRaw(p);
}

TEST_F(GPUDeviceTest, PlatformVariableChoosesThePlatformOnlyWhereTheOptionsNameNone) {
  ScopedEnv platform("MINITF_GPU_PLATFORM", "CUDA");
  absl::StatusOr<GPUOptions> applied = ApplyGPUEnvironment(GPUOptions());
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->platform, "CUDA");
  GPUOptions pinned;
  pinned.platform = "SimGPU";
  applied = ApplyGPUEnvironment(pinned);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->platform, "SimGPU");
  // A pinned session gets its SimGPU device whatever the variable says.
  std::vector<std::unique_ptr<Device>> devices = Devices(Options(kOneGPU));
  ASSERT_THAT(GPUsOf(devices), SizeIs(1));
  EXPECT_EQ(GPUsOf(devices)[0]->platform_name(), "SimGPU");
}

TEST_F(GPUDeviceTest, ThreadModeInTheOptionsWinsOverTheEnvironment) {
  ScopedEnv thread_mode("TF_GPU_THREAD_MODE", "bogus");
  GPUOptions options;
  options.thread_mode = "gpu_shared";
  absl::StatusOr<GPUOptions> applied = ApplyGPUEnvironment(options);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->thread_mode, "gpu_shared");
}

TEST_F(GPUDeviceTest, MalformedMinitfSimgpuFailsOnlyTheDefaultPlatform) {
  ScopedEnv env("MINITF_SIMGPU", "count=two");
  // The environment is not GPUOptions' business...
  EXPECT_TRUE(ApplyGPUEnvironment(GPUOptions()).ok());
  // ...but the default SimGPU instance reads it.
  DeviceOptions default_platform;
  default_platform.intra_op_parallelism_threads = 2;
  default_platform.gpu_options.platform = "SimGPU";
  const absl::Status s = CreateStatus(default_platform);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("MINITF_SIMGPU"));
  // A session naming its SimGPU options does not use it.
  EXPECT_TRUE(CreateStatus(Options(kOneGPU)).ok());
}

}  // namespace
}  // namespace minitf
