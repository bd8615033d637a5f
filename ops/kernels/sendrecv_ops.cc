// Kernels: _Send (synchronous: hands its input to the step's rendezvous and
// returns) and _Recv (asynchronous: completes when the tensor arrives or the
// rendezvous is aborted). Both carry deadness: a dead input is sent as
// is_dead and comes out of the _Recv as a dead output. Registered for CPU
// and GPU; the rendezvous does the copies between device memories.
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"
#include "runtime/rendezvous.h"

namespace minitf {

namespace {

// The rendezvous key of a _Send or _Recv node, from its attrs.
absl::Status KeyFromAttrs(OpKernelConstruction* ctx, Rendezvous::ParsedKey* key) {
  std::string tensor_name, send_device, recv_device;
  int64_t incarnation = 0;
  absl::Status s = ctx->GetAttr("tensor_name", &tensor_name);
  if (s.ok()) s = ctx->GetAttr("send_device", &send_device);
  if (s.ok()) s = ctx->GetAttr("recv_device", &recv_device);
  if (s.ok()) s = ctx->GetAttr("send_device_incarnation", &incarnation);
  if (!s.ok()) return s;
  const std::string full = Rendezvous::CreateKey(
      send_device, static_cast<uint64_t>(incarnation), recv_device, tensor_name);
  return Rendezvous::ParseKey(full, key);
}

absl::Status NoRendezvous(const OpKernel& kernel) {
  return absl::InternalError(absl::StrCat(kernel.type_string(), " '", kernel.name(),
                                          "' runs in a step without a rendezvous"));
}

// `base` with the frame and iteration the kernel runs in: inside a while
// loop, each iteration's transfer has a key of its own.
std::shared_ptr<const Rendezvous::ParsedKey> KeyInFrame(const Rendezvous::ParsedKey& base,
                                                        FrameAndIter frame_iter) {
  auto key = std::make_shared<Rendezvous::ParsedKey>(base);
  key->frame_iter = frame_iter;
  key->full_key = Rendezvous::CreateKey(base.src_device, base.src_incarnation, base.dst_device,
                                        base.edge_name, frame_iter);
  return key;
}

// What this end tells the rendezvous: how its device copies, and whether its
// tensor is (sender) or should be (receiver) in host memory.
Rendezvous::Args TransferArgs(OpKernelContext* ctx, AllocatorAttributes alloc_attrs) {
  Rendezvous::Args args;
  args.device_context = ctx->op_device_context() != nullptr ? ctx->op_device_context()
                                                            : ctx->device()->device_context();
  args.alloc_attrs = alloc_attrs;
  return args;
}

}  // namespace

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, KeyFromAttrs(ctx, &key_));
  }
  void Compute(OpKernelContext* ctx) override {
    Rendezvous* rendezvous = ctx->rendezvous();
    OP_REQUIRES(ctx, rendezvous != nullptr, NoRendezvous(*this));
    std::shared_ptr<const Rendezvous::ParsedKey> in_frame;
    if (!ctx->frame_iter().IsRoot()) in_frame = KeyInFrame(key_, ctx->frame_iter());
    const Rendezvous::ParsedKey& key = in_frame ? *in_frame : key_;
    if (ctx->is_input_dead()) {
      OP_REQUIRES_OK(ctx, rendezvous->Send(key, TransferArgs(ctx, ctx->input_alloc_attr(0)),
                                           Tensor(), true));
      return;
    }
    OP_REQUIRES_OK(ctx, rendezvous->Send(key, TransferArgs(ctx, ctx->input_alloc_attr(0)),
                                         ctx->input(0), false));
  }
  bool IsExpensive() override { return false; }

 private:
  Rendezvous::ParsedKey key_;  // Immutable after construction.
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, KeyFromAttrs(ctx, &key_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    Rendezvous* rendezvous = ctx->rendezvous();
    OP_REQUIRES_ASYNC(ctx, rendezvous != nullptr, NoRendezvous(*this), done);
    // Kept alive by the callback: the rendezvous may refer to the key until
    // the transfer is done.
    std::shared_ptr<const Rendezvous::ParsedKey> in_frame;
    if (!ctx->frame_iter().IsRoot()) in_frame = KeyInFrame(key_, ctx->frame_iter());
    const Rendezvous::ParsedKey& key = in_frame ? *in_frame : key_;
    rendezvous->RecvAsync(
        key, TransferArgs(ctx, ctx->output_alloc_attr(0)),
        [ctx, in_frame, done = std::move(done)](const absl::Status& s, const Rendezvous::Args&,
                                      const Rendezvous::Args&, const Tensor& val,
                                      bool is_dead) {
          if (!s.ok()) {
            ctx->SetStatus(s);
          } else if (is_dead) {
            *ctx->is_output_dead() = true;
          } else {
            ctx->set_output(0, val);
          }
          done();
        });
  }
  bool IsExpensive() override { return false; }

 private:
  Rendezvous::ParsedKey key_;  // Immutable after construction.
};

REGISTER_KERNEL_BUILDER(Name("_Send").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(Name("_Recv").Device(DEVICE_CPU), RecvOp);
// Same classes on GPU: the kernels only talk to the rendezvous, which copies
// between host and device memory through the devices' DeviceContexts.
REGISTER_KERNEL_BUILDER(Name("_Send").Device(DEVICE_GPU), SendOp);
REGISTER_KERNEL_BUILDER(Name("_Recv").Device(DEVICE_GPU), RecvOp);
// The host-memory ends: on the CPU the same as _Send/_Recv, on a GPU with
// the tensor in host memory.
REGISTER_KERNEL_BUILDER(Name("_HostSend").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(Name("_HostRecv").Device(DEVICE_CPU), RecvOp);
REGISTER_KERNEL_BUILDER(Name("_HostSend").Device(DEVICE_GPU).HostMemory("tensor"), SendOp);
REGISTER_KERNEL_BUILDER(Name("_HostRecv").Device(DEVICE_GPU).HostMemory("tensor"), RecvOp);

}  // namespace minitf
