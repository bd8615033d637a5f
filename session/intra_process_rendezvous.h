// IntraProcessRendezvous: the rendezvous of a step whose partitions run on
// the devices of one DeviceMgr (TensorFlow's IntraProcessRendezvous). It
// matches Sends with Recvs through a LocalRendezvous and, when the receiver
// wants the tensor in another memory than the sender's, copies it through
// the devices' DeviceContexts:
//
//   sender's memory -> receiver's memory   what happens
//   host   -> host                         the tensor passes through (CPU -> CPU)
//   device -> host                         sender's CopyDeviceTensorToCPU
//   host   -> device                       receiver's CopyCPUTensorToDevice
//   device -> same device                  passes through
//   device -> other device                 through a host tensor (both copies)
//
// A tensor is in device memory when its side's Args (or, if that has none,
// its device) has a DeviceContext and its alloc_attrs do not say on_host.
// The receiver's tensor is allocated from the receiving device's allocator
// for the receiver's alloc_attrs.
//
// It lives in session/ rather than runtime/ because it looks devices up in a
// DeviceMgr (device/ sits above runtime/).
//
//   IntraProcessRendezvous rendezvous(device_mgr);   // one per step
//   args.rendezvous = &rendezvous;
//
// Thread-safe. Owned by the step's runner; see rendezvous.h for its lifetime.
#ifndef MINITF_SESSION_INTRA_PROCESS_RENDEZVOUS_H_
#define MINITF_SESSION_INTRA_PROCESS_RENDEZVOUS_H_

#include "device/device_mgr.h"
#include "runtime/rendezvous.h"

namespace minitf {

class IntraProcessRendezvous final : public Rendezvous {
 public:
  // `device_mgr` is not owned and must outlive the rendezvous and every
  // copy it starts.
  explicit IntraProcessRendezvous(const DeviceMgr* device_mgr) : device_mgr_(device_mgr) {}

  absl::Status Send(const ParsedKey& key, const Args& send_args, const Tensor& val,
                    bool is_dead) override;
  // Errors: the abort status; NotFound when a device of the key is not in
  // the DeviceMgr; a copy's error, naming the key.
  void RecvAsync(const ParsedKey& key, const Args& recv_args, DoneCallback done) override;
  void StartAbort(const absl::Status& status) override { local_.StartAbort(status); }

  // OK until aborted, then the status of the first StartAbort.
  absl::Status status() const { return local_.status(); }

 private:
  const DeviceMgr* const device_mgr_;
  LocalRendezvous local_;
};

}  // namespace minitf

#endif  // MINITF_SESSION_INTRA_PROCESS_RENDEZVOUS_H_
