// What the CUDA op kernels share: the compute stream of the kernel's GPU
// device (TensorFlow's model: a kernel enqueues its work there and returns;
// the stream orders it after its inputs' producers), tensors as device
// memory, and CUDA launch errors as statuses naming the node. Each kernel
// times its launches for the stream's busy time (ScopedKernelTiming).
//
//   absl::StatusOr<se::Stream*> stream = ComputeStream(ctx);
//   OP_REQUIRES_OK(ctx, stream.status());
//   const se::cuda::ScopedKernelTiming timing(*stream);
//   OP_REQUIRES_OK(ctx, LaunchStatus(LaunchUnaryOp(CudaStreamOf(*stream), ...), "Exp", *this));
#ifndef MINITF_OPS_KERNELS_CUDA_CUDA_KERNEL_HELPERS_H_
#define MINITF_OPS_KERNELS_CUDA_CUDA_KERNEL_HELPERS_H_

#include <cuda_runtime_api.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
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

// The BLAS plugin of `stream`'s executor (cuBLAS). FailedPrecondition,
// naming `op`'s node, when the executor has none.
absl::StatusOr<se::BlasSupport*> BlasOf(se::Stream* stream, const OpKernel& op);

// The DNN plugin of `stream`'s executor (cuDNN). FailedPrecondition, naming
// `op`'s node, when the executor has none.
absl::StatusOr<se::DnnSupport*> DnnOf(se::Stream* stream, const OpKernel& op);

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
