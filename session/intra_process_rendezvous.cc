#include "session/intra_process_rendezvous.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace minitf {

namespace {

using Args = Rendezvous::Args;

// The context that copies `side`'s tensor, or null when it is in host memory.
DeviceContext* DeviceMemoryContext(const Args& side, Device* device) {
  if (side.alloc_attrs.on_host) return nullptr;
  return side.device_context != nullptr ? side.device_context : device->device_context();
}

absl::Status CopyError(const Rendezvous::ParsedKey& key, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat("copying tensor '", key.edge_name, "' from ",
                                             key.src_device, " to ", key.dst_device, ": ",
                                             s.message()));
}

// One transfer between memories; shared by the copy callbacks of one
// RecvAsync (they may complete on a device's stream thread).
struct CopyState {
  Rendezvous::ParsedKey key;
  Args send_args;
  Args recv_args;
  Tensor input;
  Tensor staging;  // Host copy, for device -> other device.
  Tensor output;
  Rendezvous::DoneCallback done;

  void Finish(const absl::Status& s) {
    if (!s.ok()) {
      done(CopyError(key, s), send_args, recv_args, Tensor(), false);
    } else {
      done(absl::OkStatus(), send_args, recv_args, output, false);
    }
  }
};

// Copies `state->input` from `src`'s memory to `dst`'s, then finishes.
void CopyAcrossMemories(std::shared_ptr<CopyState> state, Device* src, DeviceContext* src_ctx,
                        Device* dst, DeviceContext* dst_ctx) {
  const Tensor& in = state->input;
  absl::StatusOr<Tensor> out =
      Tensor::Allocate(dst->GetAllocator(state->recv_args.alloc_attrs), in.dtype(), in.shape());
  if (!out.ok()) return state->Finish(out.status());
  state->output = *std::move(out);
  if (src_ctx != nullptr && dst_ctx == nullptr) {
    src_ctx->CopyDeviceTensorToCPU(&state->input, src, &state->output,
                                   [state](const absl::Status& s) { state->Finish(s); });
    return;
  }
  if (src_ctx == nullptr) {
    dst_ctx->CopyCPUTensorToDevice(&state->input, dst, &state->output,
                                   [state](const absl::Status& s) { state->Finish(s); });
    return;
  }
  // Device to another device: stage through host memory.
  AllocatorAttributes host;
  host.on_host = true;
  absl::StatusOr<Tensor> staging =
      Tensor::Allocate(src->GetAllocator(host), in.dtype(), in.shape());
  if (!staging.ok()) return state->Finish(staging.status());
  state->staging = *std::move(staging);
  src_ctx->CopyDeviceTensorToCPU(
      &state->input, src, &state->staging, [state, dst, dst_ctx](const absl::Status& s) {
        if (!s.ok()) return state->Finish(s);
        dst_ctx->CopyCPUTensorToDevice(&state->staging, dst, &state->output,
                                       [state](const absl::Status& s2) { state->Finish(s2); });
      });
}

}  // namespace

absl::Status IntraProcessRendezvous::Send(const ParsedKey& key, const Args& send_args,
                                          const Tensor& val, bool is_dead) {
  return local_.Send(key, send_args, val, is_dead);
}

void IntraProcessRendezvous::RecvAsync(const ParsedKey& key, const Args& recv_args,
                                       DoneCallback done) {
  const DeviceMgr* mgr = device_mgr_;
  local_.RecvAsync(key, recv_args,
                   [mgr, key, done = std::move(done)](
                       const absl::Status& s, const Args& send_args, const Args& recv_args,
                       const Tensor& val, bool is_dead) {
                     if (!s.ok() || is_dead || !val.IsInitialized()) {
                       done(s, send_args, recv_args, val, is_dead);
                       return;
                     }
                     absl::StatusOr<Device*> src = mgr->LookupDevice(key.src_device);
                     absl::StatusOr<Device*> dst = mgr->LookupDevice(key.dst_device);
                     if (!src.ok() || !dst.ok()) {
                       done(CopyError(key, src.ok() ? dst.status() : src.status()), send_args,
                            recv_args, Tensor(), false);
                       return;
                     }
                     DeviceContext* src_ctx = DeviceMemoryContext(send_args, *src);
                     DeviceContext* dst_ctx = DeviceMemoryContext(recv_args, *dst);
                     if ((src_ctx == nullptr && dst_ctx == nullptr) ||
                         (*src == *dst && src_ctx != nullptr && dst_ctx != nullptr)) {
                       done(absl::OkStatus(), send_args, recv_args, val, false);
                       return;
                     }
                     auto state = std::make_shared<CopyState>();
                     state->key = key;
                     state->send_args = send_args;
                     state->recv_args = recv_args;
                     state->input = val;
                     state->done = done;
                     CopyAcrossMemories(std::move(state), *src, src_ctx, *dst, dst_ctx);
                   });
}

}  // namespace minitf
