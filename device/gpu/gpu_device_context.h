// GPUDeviceContext: moves tensors between host memory and one GPU's memory on
// the GPU's copy streams, ordered against its compute stream with stream
// waits (which the platforms implement with events):
//
//   host -> device:   h2d waits for compute (the destination may be a buffer
//                     the compute stream last used); copy on h2d; compute
//                     waits for h2d so later kernels see the data.
//   device -> host:   d2h waits for compute (the kernels producing the
//                     source); copy on d2h.
//   device -> device: d2d waits for compute; copy on d2d; compute waits d2d.
//
// `done` runs on a stream callback thread once the copy has finished (or
// failed). The caller keeps both tensors alive until then.
//
// Thread-safe; owned by its GPUDevice, streams not owned.
#ifndef MINITF_DEVICE_GPU_GPU_DEVICE_CONTEXT_H_
#define MINITF_DEVICE_GPU_GPU_DEVICE_CONTEXT_H_

#include "runtime/device_base.h"
#include "stream/stream.h"

namespace minitf {

class GPUDeviceContext final : public DeviceContext {
 public:
  GPUDeviceContext(se::Stream* compute, se::Stream* host_to_device, se::Stream* device_to_host,
                   se::Stream* device_to_device);

  void CopyCPUTensorToDevice(const Tensor* cpu_tensor, DeviceBase* device,
                             Tensor* device_tensor, StatusCallback done) const override;
  void CopyDeviceTensorToCPU(const Tensor* device_tensor, DeviceBase* device,
                             Tensor* cpu_tensor, StatusCallback done) const override;
  // Both tensors on this context's device.
  void CopyTensorInSameDevice(const Tensor* input, DeviceBase* device, Tensor* output,
                              StatusCallback done) const;

  se::Stream* stream() const { return compute_; }
  se::Stream* host_to_device_stream() const { return host_to_device_; }
  se::Stream* device_to_host_stream() const { return device_to_host_; }
  se::Stream* device_to_device_stream() const { return device_to_device_; }

 private:
  se::Stream* const compute_;
  se::Stream* const host_to_device_;
  se::Stream* const device_to_host_;
  se::Stream* const device_to_device_;
};

}  // namespace minitf

#endif  // MINITF_DEVICE_GPU_GPU_DEVICE_CONTEXT_H_
