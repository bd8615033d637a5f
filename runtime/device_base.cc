#include "runtime/device_base.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/op_kernel.h"

namespace minitf {

void DeviceContext::CopyCPUTensorToDevice(const Tensor*, DeviceBase* device, Tensor*,
                                          StatusCallback done) const {
  done(absl::UnimplementedError(
      absl::StrCat("device ", device->name(), " has no host-to-device copy")));
}

void DeviceContext::CopyDeviceTensorToCPU(const Tensor*, DeviceBase* device, Tensor*,
                                          StatusCallback done) const {
  done(absl::UnimplementedError(
      absl::StrCat("device ", device->name(), " has no device-to-host copy")));
}

const std::string& DeviceBase::platform_name() const {
  static const std::string* const kNone = new std::string();
  return *kNone;
}

void DeviceBase::Compute(OpKernel* op_kernel, OpKernelContext* context) {
  op_kernel->Compute(context);
}

void DeviceBase::ComputeAsync(AsyncOpKernel* op_kernel, OpKernelContext* context,
                              std::function<void()> done) {
  op_kernel->ComputeAsync(context, std::move(done));
}

}  // namespace minitf
