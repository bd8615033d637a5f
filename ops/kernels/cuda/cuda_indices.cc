#include "ops/kernels/cuda/cuda_indices.h"

#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cuda/index_check_gpu.h"
#include "platform/status_macros.h"

namespace minitf {

absl::StatusOr<std::optional<BadIndex>> FindBadIndexCuda(OpKernelContext* ctx, int input,
                                                         int64_t lower, int64_t limit) {
  const Tensor& indices = ctx->input(input);
  if (ctx->input_alloc_attr(input).on_host) return FindBadIndexOnHost(indices, lower, limit);
  const int64_t n = indices.NumElements();
  if (n == 0) return std::nullopt;
  const NodeDef& def = ctx->op_kernel().def();
  MINITF_ASSIGN_OR_RETURN(se::Stream * stream, ComputeStream(ctx));
  const se::cuda::ScopedKernelTiming timing(stream);
  Tensor first_bad_on_device;
  MINITF_RETURN_IF_ERROR(ctx->allocate_temp(DT_INT64, TensorShape({}), &first_bad_on_device));
  const bool is_int64 = indices.dtype() == DT_INT64;
  MINITF_RETURN_IF_ERROR(
      LaunchStatus(gpu::LaunchFindBadIndex(CudaStreamOf(stream), indices.raw_data(), is_int64, n,
                                           lower, limit, first_bad_on_device.data<int64_t>()),
                   "FindBadIndex", ctx->op_kernel()));
  int64_t first_bad = n;
  MINITF_RETURN_IF_ERROR(AttachNodeName(
      stream->Memcpy(&first_bad,
                     se::DeviceMemoryBase(first_bad_on_device.raw_data(), sizeof(int64_t)),
                     sizeof(int64_t)),
      def));
  MINITF_RETURN_IF_ERROR(AttachNodeName(stream->BlockHostUntilDone(), def));
  if (first_bad >= n) return std::nullopt;
  // The bad value itself, for the message.
  const size_t element_size = DataTypeSize(indices.dtype());
  const auto* bad_element = static_cast<const char*>(indices.raw_data()) + first_bad * element_size;
  int64_t value64 = 0;
  int32_t value32 = 0;
  void* value = is_int64 ? static_cast<void*>(&value64) : static_cast<void*>(&value32);
  MINITF_RETURN_IF_ERROR(AttachNodeName(
      stream->Memcpy(value, se::DeviceMemoryBase(const_cast<char*>(bad_element), element_size),
                     element_size),
      def));
  MINITF_RETURN_IF_ERROR(AttachNodeName(stream->BlockHostUntilDone(), def));
  return BadIndex{first_bad, is_int64 ? value64 : value32};
}

absl::StatusOr<Tensor> IndicesOnDevice(OpKernelContext* ctx, int input) {
  const Tensor& indices = ctx->input(input);
  if (!ctx->input_alloc_attr(input).on_host || indices.NumElements() == 0) return indices;
  const NodeDef& def = ctx->op_kernel().def();
  MINITF_ASSIGN_OR_RETURN(se::Stream * stream, ComputeStream(ctx));
  const se::cuda::ScopedKernelTiming timing(stream);
  Tensor on_device;
  MINITF_RETURN_IF_ERROR(ctx->allocate_temp(indices.dtype(), indices.shape(), &on_device));
  se::DeviceMemoryBase dst(on_device.raw_data(), on_device.TotalBytes());
  MINITF_RETURN_IF_ERROR(
      AttachNodeName(stream->Memcpy(&dst, indices.raw_data(), indices.TotalBytes()), def));
  // The host buffer must outlive the copy: the stream lets go of it once it
  // has passed this point.
  MINITF_RETURN_IF_ERROR(AttachNodeName(stream->DoHostCallback([indices] {}), def));
  return on_device;
}

}  // namespace minitf
