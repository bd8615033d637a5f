#include "device/gpu/gpu_device.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "stream/device_memory_protection.h"
#include "stream/platform.h"
#include "stream/sm_partition.h"

namespace minitf {
namespace {

DeviceAttributes GPUAttributes(int id, const se::DeviceDescription& desc, int64_t limit) {
  DeviceAttributes attrs;
  attrs.name = FullDeviceName(DEVICE_GPU, id);
  attrs.device_type = DEVICE_GPU;
  attrs.memory_limit = limit;
  attrs.physical_device_desc = absl::StrCat("device: ", desc.ordinal, ", name: ", desc.name,
                                            ", pci bus id: ", desc.pci_bus_id,
                                            ", platform: ", desc.platform);
  return attrs;
}

// The pool every GPU device of the process shares in gpu_shared mode.
ThreadPool* SharedGPUThreadPool() {
  static ThreadPool* const pool = new ThreadPool("gpu_shared", 2);
  return pool;
}

}  // namespace

absl::StatusOr<std::unique_ptr<GPUDevice>> GPUDevice::Create(
    int id, se::StreamExecutor* executor, const GPUOptions& options,
    GPUAllocatorStack* shared_stack, std::unique_ptr<GPUAllocatorStack> owned_stack,
    int intra_op_threads) {
  GPUAllocatorStack* stack = owned_stack != nullptr ? owned_stack.get() : shared_stack;
  if (stack == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("GPU:", id, " has no allocator stack"));
  }
  std::unique_ptr<GPUDevice> device(new GPUDevice(
      id,
      GPUAttributes(id, executor->GetDeviceDescription(),
                    static_cast<int64_t>(stack->device_bfc()->GetPoolStats().memory_limit)),
      executor, stack, std::move(owned_stack), intra_op_threads));
  const std::string where = absl::StrCat(" for ", device->name());
  if (options.sm_fraction > 0) {
    device->partition_ = std::make_shared<se::SmPartition>(options.sm_fraction);
  }
  for (std::unique_ptr<se::Stream>* s : {&device->compute_, &device->host_to_device_,
                                         &device->device_to_host_, &device->device_to_device_}) {
    absl::StatusOr<std::unique_ptr<se::Stream>> stream =
        device->partition_ != nullptr
            ? executor->CreateStreamInPartition(options.stream_priority, device->partition_)
            : executor->CreateStreamWithPriority(options.stream_priority);
    if (!stream.ok()) {
      return absl::Status(stream.status().code(),
                          absl::StrCat("creating a stream", where, ": ",
                                       stream.status().message()));
    }
    *s = *std::move(stream);
  }
  device->context_ = std::make_unique<GPUDeviceContext>(
      device->compute_.get(), device->host_to_device_.get(), device->device_to_host_.get(),
      device->device_to_device_.get());
  // CUDA kernels are synchronous launches: they are paced as well.
  device->op_manager_ =
      std::make_unique<GpuOpManager>(device->name(), /*paces_sync_kernels=*/true);
  device->info_.stream = device->compute_.get();
  device->info_.executor = executor;
  device->info_.default_context = device->context_.get();
  device->info_.gpu_id = executor->device_ordinal();
  if (options.thread_mode == "gpu_private") {
    device->private_pool_ =
        std::make_unique<ThreadPool>(absl::StrCat("gpu_private_", id), 2);
    device->device_pool_ = device->private_pool_.get();
  } else if (options.thread_mode == "gpu_shared") {
    device->device_pool_ = SharedGPUThreadPool();
  }
  return device;
}

GPUDevice::GPUDevice(int id, DeviceAttributes attributes, se::StreamExecutor* executor,
                     GPUAllocatorStack* stack, std::unique_ptr<GPUAllocatorStack> owned_stack,
                     int intra_op_threads)
    : Device(std::move(attributes), id),
      executor_(executor),
      platform_name_(executor->GetDeviceDescription().platform),
      owned_stack_(std::move(owned_stack)),
      stack_(stack),
      // The bodies of the device's kernels split their loops over this pool:
      // its threads are the device's cores, with access to device memory.
      intra_op_pool_(absl::StrCat("intra_op_gpu_", id), intra_op_threads,
                     [] { se::AllowDeviceMemoryAccessOnThisThread(); }) {}

GPUDevice::~GPUDevice() {
  // Drain the streams before the memory they may still touch goes away, and
  // drop the variables while the allocators that hold them still exist.
  // The op manager goes first: it launches what is still queued.
  op_manager_.reset();
  (void)Sync();
  resource_manager()->Clear();
  context_.reset();
  device_to_device_.reset();
  device_to_host_.reset();
  host_to_device_.reset();
  compute_.reset();
}

double GPUDevice::sm_fraction() const {
  return partition_ != nullptr ? partition_->fraction() : 1.0;
}

absl::Status GPUDevice::SetSmFraction(double fraction) {
  if (partition_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        name(), " was made without an SM partition (gpu_options.sm_fraction 0): its share of "
                "the SMs cannot change"));
  }
  partition_->set_fraction(fraction);
  return absl::OkStatus();
}

absl::Status GPUDevice::FillContextMap(int num_node_ids,
                                      std::vector<DeviceContext*>* device_context_map) {
  device_context_map->assign(static_cast<size_t>(num_node_ids), context_.get());
  return absl::OkStatus();
}

Allocator* GPUDevice::GetAllocator(AllocatorAttributes attrs) {
  return attrs.on_host ? static_cast<Allocator*>(stack_->host_bfc()) : stack_->allocator();
}

absl::Status GPUDevice::Sync() {
  absl::Status first;
  for (se::Stream* s : {compute_.get(), host_to_device_.get(), device_to_host_.get(),
                        device_to_device_.get()}) {
    if (s == nullptr) continue;
    absl::Status status = s->BlockHostUntilDone();
    if (first.ok() && !status.ok()) {
      first = absl::Status(status.code(),
                           absl::StrCat(name(), ": ", status.message()));
    }
  }
  return first;
}

}  // namespace minitf
