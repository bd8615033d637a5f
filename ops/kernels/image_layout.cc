#include "ops/kernels/image_layout.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/transpose_op_gpu.h"
#endif

namespace minitf {

TensorShape Permuted(const TensorShape& shape, const std::array<int, 4>& perm) {
  return TensorShape({shape.dim_size(perm[0]), shape.dim_size(perm[1]), shape.dim_size(perm[2]),
                      shape.dim_size(perm[3])});
}

#ifdef MINITF_WITH_CUDA
absl::Status CudaTransposeImage(OpKernelContext* ctx, const Tensor& in,
                                const std::array<int, 4>& perm, Tensor* out) {
  const gpu::TransposeLayout layout =
      gpu::MakeTransposeLayout(4, in.shape().dim_sizes().data(), perm.data());
  return LaunchOnComputeStream(ctx, "Transpose", [&](cudaStream_t stream) {
    return gpu::LaunchTranspose(stream, sizeof(float), layout, in.raw_data(), out->raw_data());
  });
}
#endif

}  // namespace minitf
