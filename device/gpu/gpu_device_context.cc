#include "device/gpu/gpu_device_context.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/tensor.h"

namespace minitf {
namespace {

// Checks that a copy between `src` and `dst` is possible.
absl::Status CheckCopy(const Tensor& src, const Tensor& dst, const DeviceBase& device) {
  if (src.dtype() != dst.dtype() || src.TotalBytes() != dst.TotalBytes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "copy on ", device.name(), " between tensors of different type or size: ",
        DataTypeString(src.dtype()), src.shape().DebugString(), " and ",
        DataTypeString(dst.dtype()), dst.shape().DebugString()));
  }
  return absl::OkStatus();
}

// Runs `done` with `stream`'s status once its work so far is finished; an
// enqueue failure runs it at once.
void DoneAfter(se::Stream* stream, StatusCallback done) {
  auto shared = std::make_shared<StatusCallback>(std::move(done));
  absl::Status s = stream->DoHostCallback([stream, shared] { (*shared)(stream->status()); });
  if (!s.ok()) (*shared)(s);
}

}  // namespace

GPUDeviceContext::GPUDeviceContext(se::Stream* compute, se::Stream* host_to_device,
                                   se::Stream* device_to_host, se::Stream* device_to_device)
    : compute_(compute),
      host_to_device_(host_to_device),
      device_to_host_(device_to_host),
      device_to_device_(device_to_device) {}

void GPUDeviceContext::CopyCPUTensorToDevice(const Tensor* cpu_tensor, DeviceBase* device,
                                             Tensor* device_tensor,
                                             StatusCallback done) const {
  if (absl::Status s = CheckCopy(*cpu_tensor, *device_tensor, *device); !s.ok()) {
    return done(s);
  }
  const uint64_t bytes = cpu_tensor->TotalBytes();
  if (bytes == 0) return done(absl::OkStatus());
  se::DeviceMemoryBase dst(device_tensor->raw_data(), bytes);
  absl::Status s = host_to_device_->WaitFor(compute_);
  if (s.ok()) s = host_to_device_->Memcpy(&dst, cpu_tensor->raw_data(), bytes);
  if (s.ok()) s = compute_->WaitFor(host_to_device_);
  if (!s.ok()) return done(s);
  DoneAfter(host_to_device_, std::move(done));
}

void GPUDeviceContext::CopyDeviceTensorToCPU(const Tensor* device_tensor, DeviceBase* device,
                                             Tensor* cpu_tensor, StatusCallback done) const {
  if (absl::Status s = CheckCopy(*device_tensor, *cpu_tensor, *device); !s.ok()) {
    return done(s);
  }
  const uint64_t bytes = device_tensor->TotalBytes();
  if (bytes == 0) return done(absl::OkStatus());
  se::DeviceMemoryBase src(device_tensor->raw_data(), bytes);
  absl::Status s = device_to_host_->WaitFor(compute_);
  if (s.ok()) s = device_to_host_->Memcpy(cpu_tensor->raw_data(), src, bytes);
  if (!s.ok()) return done(s);
  DoneAfter(device_to_host_, std::move(done));
}

void GPUDeviceContext::CopyTensorInSameDevice(const Tensor* input, DeviceBase* device,
                                              Tensor* output, StatusCallback done) const {
  if (absl::Status s = CheckCopy(*input, *output, *device); !s.ok()) return done(s);
  const uint64_t bytes = input->TotalBytes();
  if (bytes == 0) return done(absl::OkStatus());
  se::DeviceMemoryBase src(input->raw_data(), bytes);
  se::DeviceMemoryBase dst(output->raw_data(), bytes);
  absl::Status s = device_to_device_->WaitFor(compute_);
  if (s.ok()) s = device_to_device_->Memcpy(&dst, src, bytes);
  if (s.ok()) s = compute_->WaitFor(device_to_device_);
  if (!s.ok()) return done(s);
  DoneAfter(device_to_device_, std::move(done));
}

}  // namespace minitf
