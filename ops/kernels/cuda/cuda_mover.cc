#include "ops/kernels/cuda/cuda_mover.h"

#include "absl/strings/str_cat.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/strided_copy.h"
#include "ops/kernels/strided_copy_gpu.h"
#include "runtime/node_def_util.h"

namespace minitf {

absl::Status CudaMover::Copy(OpKernelContext* ctx, size_t element_size,
                             absl::Span<const int64_t> shape, const void* src, int64_t src_offset,
                             absl::Span<const int64_t> src_strides, void* dst, int64_t dst_offset,
                             absl::Span<const int64_t> dst_strides) {
  const FoldedCopy folded = FoldCopy(shape, src_strides, dst_strides);
  if (folded.empty) return absl::OkStatus();
  const int rank = static_cast<int>(folded.dims.size());
  if (rank > gpu::kMaxStridedCopyRank) {
    return AttachNodeName(absl::UnimplementedError(absl::StrCat(
                              "the CUDA strided copy moves at most ", gpu::kMaxStridedCopyRank,
                              " dimensions that are not contiguous; this one has ", rank)),
                          ctx->op_kernel().def());
  }
  gpu::StridedCopyParams p;
  p.rank = rank;
  for (int d = 0; d < rank; ++d) {
    p.dims[d] = folded.dims[d];
    p.src_strides[d] = folded.src_strides[d];
    p.dst_strides[d] = folded.dst_strides[d];
    p.count *= folded.dims[d];
  }
  p.src_offset = src_offset;
  p.dst_offset = dst_offset;
  return LaunchOnComputeStream(ctx, "StridedCopy", [&](cudaStream_t stream) {
    return gpu::LaunchStridedCopy(stream, element_size, p, src, dst);
  });
}

absl::Status CudaMover::Fill(OpKernelContext* ctx, const Tensor& value, Tensor* t) {
  return LaunchOnComputeStream(ctx, "FillElements", [&](cudaStream_t stream) {
    return gpu::LaunchFillElements(stream, t->raw_data(), t->NumElements(),
                                   DataTypeSize(t->dtype()), value.raw_data());
  });
}

absl::Status CudaMover::Zero(OpKernelContext* ctx, Tensor* t) {
  return ZeroOnComputeStream(ctx, t);
}

}  // namespace minitf
