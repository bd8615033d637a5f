#include "ops/kernels/cuda/cuda_kernel_helpers.h"

#include "absl/strings/str_cat.h"
#include "runtime/node_def_util.h"
#include "stream/cuda/cuda_platform.h"
#include "stream/cuda/cuda_status.h"
#include "stream/stream_executor.h"

namespace minitf {

absl::StatusOr<se::Stream*> ComputeStream(OpKernelContext* ctx) {
  const GPUDeviceInfo* info = ctx->device()->gpu_device_info();
  se::Stream* stream = info == nullptr ? nullptr : info->stream;
  if (stream == nullptr || stream->parent()->platform()->id() != se::cuda::CudaPlatform::Id()) {
    return AttachNodeName(
        absl::FailedPreconditionError(absl::StrCat("a CUDA kernel needs a GPU device of the ",
                                                   se::cuda::kCudaPlatformName,
                                                   " platform; device ", ctx->device()->name(),
                                                   " has no CUDA compute stream")),
        ctx->op_kernel().def());
  }
  if (absl::Status s = stream->status(); !s.ok()) return s;
  return stream;
}

absl::Status AllocateScratch(OpKernelContext* ctx, int64_t bytes, Tensor* scratch) {
  if (bytes <= 0) return absl::OkStatus();
  // minitf's dtypes have no bytes; doubles hold the size rounded up.
  const int64_t words = (bytes + static_cast<int64_t>(sizeof(double)) - 1) /
                        static_cast<int64_t>(sizeof(double));
  return ctx->allocate_temp(DT_DOUBLE, TensorShape({words}), scratch);
}

absl::Status CopyOnComputeStream(OpKernelContext* ctx, const Tensor& from, Tensor* to) {
  if (from.TotalBytes() == 0) return absl::OkStatus();
  return LaunchOnComputeStream(ctx, "cudaMemcpyAsync", [&](cudaStream_t stream) {
    return cudaMemcpyAsync(to->raw_data(), from.raw_data(), from.TotalBytes(),
                           cudaMemcpyDeviceToDevice, stream);
  });
}

absl::Status ZeroOnComputeStream(OpKernelContext* ctx, Tensor* t) {
  if (t->TotalBytes() == 0) return absl::OkStatus();
  return LaunchOnComputeStream(ctx, "cudaMemsetAsync", [&](cudaStream_t stream) {
    return cudaMemsetAsync(t->raw_data(), 0, t->TotalBytes(), stream);
  });
}

absl::StatusOr<se::BlasSupport*> BlasOf(se::Stream* stream, const OpKernel& op) {
  se::BlasSupport* blas = stream->parent()->AsBlas();
  if (blas == nullptr) {
    return AttachNodeName(absl::FailedPreconditionError("the CUDA device has no BLAS plugin"),
                          op.def());
  }
  return blas;
}

absl::StatusOr<se::DnnSupport*> DnnOf(se::Stream* stream, const OpKernel& op) {
  se::DnnSupport* dnn = stream->parent()->AsDnn();
  if (dnn == nullptr) {
    return AttachNodeName(absl::FailedPreconditionError("the CUDA device has no DNN plugin"),
                          op.def());
  }
  return dnn;
}

absl::Status LaunchStatus(cudaError_t error, absl::string_view cuda_kernel, const OpKernel& op) {
  if (error == cudaSuccess) return absl::OkStatus();
  return AttachNodeName(se::cuda::CudaStatus(error, absl::StrCat("launch of ", cuda_kernel)),
                        op.def());
}

}  // namespace minitf
