// What the CUDA op kernels share: the compute stream of the kernel's GPU
// device (TensorFlow's model: a kernel enqueues its work there and returns;
// the stream orders it after its inputs' producers), tensors as device
// memory, and CUDA launch errors as statuses naming the node. Each kernel
// times its launches for the stream's busy time (ScopedKernelTiming).
//
// A family's CUDA launch (ops/kernels/X.cc, under MINITF_WITH_CUDA) is
// usually one call:
//
//   return LaunchOnComputeStream(ctx, "Exp", [&](cudaStream_t stream) {
//     return gpu::LaunchUnaryOp(stream, ...);
//   });
#ifndef MINITF_OPS_KERNELS_CUDA_CUDA_KERNEL_HELPERS_H_
#define MINITF_OPS_KERNELS_CUDA_CUDA_KERNEL_HELPERS_H_

#include <cuda_runtime_api.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/node_def_util.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"
#include "stream/blas.h"
#include "stream/cuda/scoped_kernel_timing.h"
#include "stream/device_memory.h"
#include "stream/dnn.h"
#include "stream/stream.h"

namespace minitf {

// The compute stream of `ctx`'s device. FailedPrecondition (naming the
// node) when the device is not a GPU of the CUDA platform; the stream's
// error when it has failed before.
absl::StatusOr<se::Stream*> ComputeStream(OpKernelContext* ctx);

// REQUIRES: `stream` came from ComputeStream.
inline cudaStream_t CudaStreamOf(se::Stream* stream) {
  return static_cast<cudaStream_t>(stream->platform_specific_handle());
}

// Ok for cudaSuccess; otherwise the error, naming the CUDA kernel and node.
absl::Status LaunchStatus(cudaError_t error, absl::string_view cuda_kernel, const OpKernel& op);

// Runs `launch(cudaStream_t)` (which enqueues CUDA kernels and returns the
// launch's cudaError_t) on ctx's compute stream, timed for the stream's busy
// time. Its error names `cuda_kernel` and the node.
template <typename Launch>
absl::Status LaunchOnComputeStream(OpKernelContext* ctx, absl::string_view cuda_kernel,
                                   Launch&& launch) {
  absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
  if (!stream.ok()) return stream.status();
  const se::cuda::ScopedKernelTiming timing(*stream);
  return LaunchStatus(launch(CudaStreamOf(*stream)), cuda_kernel, ctx->op_kernel());
}

// `bytes` of device scratch for a launch, as a temporary of the step held
// in `*scratch` (doubles, so 8-byte aligned); nothing when `bytes` is 0.
// Free it after the launch: the compute stream orders the memory's next use
// after the launch's work. ResourceExhausted naming the node when the
// device has no room.
absl::Status AllocateScratch(OpKernelContext* ctx, int64_t bytes, Tensor* scratch);
// The device memory of a scratch from AllocateScratch; nullptr when empty.
inline void* ScratchOf(Tensor& scratch) {
  return scratch.NumElements() > 0 ? scratch.raw_data() : nullptr;
}

// Copies `from` into `to` (the same number of bytes, both in this GPU's
// memory) on ctx's compute stream.
absl::Status CopyOnComputeStream(OpKernelContext* ctx, const Tensor& from, Tensor* to);

// Sets every byte of `t` (in this GPU's memory) to 0 on ctx's compute stream
// (cudaMemsetAsync): 0 in every dtype CUDA kernels keep in device memory.
absl::Status ZeroOnComputeStream(OpKernelContext* ctx, Tensor* t);

// The BLAS plugin of `stream`'s executor (cuBLAS). FailedPrecondition,
// naming `op`'s node, when the executor has none.
absl::StatusOr<se::BlasSupport*> BlasOf(se::Stream* stream, const OpKernel& op);

// The DNN plugin of `stream`'s executor (cuDNN). FailedPrecondition, naming
// `op`'s node, when the executor has none.
absl::StatusOr<se::DnnSupport*> DnnOf(se::Stream* stream, const OpKernel& op);

// Runs call(stream, dnn) on ctx's compute stream with its executor's DNN
// plugin (cuDNN), timed for the stream's busy time; the call's error names
// the node.
template <typename Call>
absl::Status DnnOnComputeStream(OpKernelContext* ctx, Call&& call) {
  absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
  if (!stream.ok()) return stream.status();
  const se::cuda::ScopedKernelTiming timing(*stream);
  absl::StatusOr<se::DnnSupport*> dnn = DnnOf(*stream, ctx->op_kernel());
  if (!dnn.ok()) return dnn.status();
  return AttachNodeName(call(*stream, *dnn), ctx->op_kernel().def());
}

// The same with the executor's BLAS plugin (cuBLAS): call(stream, blas).
template <typename Call>
absl::Status BlasOnComputeStream(OpKernelContext* ctx, Call&& call) {
  absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
  if (!stream.ok()) return stream.status();
  const se::cuda::ScopedKernelTiming timing(*stream);
  absl::StatusOr<se::BlasSupport*> blas = BlasOf(*stream, ctx->op_kernel());
  if (!blas.ok()) return blas.status();
  return AttachNodeName(call(*stream, *blas), ctx->op_kernel().def());
}

// For a library call that fuses more than the plain one (cuBLASLt's
// epilogues, cuDNN's fused convolution) and may decline: sets *ran to
// whether it ran, and returns its error, OK when it declined (Unimplemented:
// the caller then does the work its plain way).
inline absl::Status UnlessDeclined(absl::Status call, bool* ran) {
  *ran = call.ok();
  return absl::IsUnimplemented(call) ? absl::OkStatus() : call;
}

// A row-major operand read as column-major is its transpose, so a GEMM
// passes each operand's own transpose flag through unchanged.
inline se::blas::Transpose BlasTranspose(bool transpose) {
  return transpose ? se::blas::Transpose::kTranspose : se::blas::Transpose::kNoTranspose;
}

// A float tensor's buffer as device memory (no copy).
inline se::DeviceMemory<float> AsDeviceMemory(const Tensor& t) {
  return se::DeviceMemory<float>::MakeFromByteSize(t.data<float>(), t.TotalBytes());
}

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_CUDA_CUDA_KERNEL_HELPERS_H_
