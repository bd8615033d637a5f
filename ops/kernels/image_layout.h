// NCHW for the image kernels that compute in NHWC (the convolutions and the
// pools), as TensorFlow's CPU kernels take it: under data_format NCHW a
// kernel transposes its image inputs into NHWC scratch tensors, computes,
// and transposes its NHWC result into the output, with its device's
// transpose (`Device::Transpose`: CpuTransposeImage on the intra-op pool,
// CudaTransposeImage on the compute stream).
//
//   Tensor x, y;
//   MINITF_RETURN_IF_ERROR(ImageToNhwc<Device>(ctx, ctx->input(0), &x));
//   MINITF_RETURN_IF_ERROR(NhwcScratchFor(ctx, *output, &y));
//   ... compute y from x in NHWC ...
//   MINITF_RETURN_IF_ERROR(ImageFromNhwc<Device>(ctx, y, output));
#ifndef MINITF_OPS_KERNELS_IMAGE_LAYOUT_H_
#define MINITF_OPS_KERNELS_IMAGE_LAYOUT_H_

#include <array>

#include "absl/status/status.h"
#include "platform/status_macros.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf {

// Dimension i of the result is dimension perm[i] of the source.
inline constexpr std::array<int, 4> kNchwToNhwc = {0, 2, 3, 1};
inline constexpr std::array<int, 4> kNhwcToNchw = {0, 3, 1, 2};

// The 4-D `shape` with its dimensions reordered by `perm`.
TensorShape Permuted(const TensorShape& shape, const std::array<int, 4>& perm);

// `out` = `in` (4-D, of T) with its dimensions reordered by `perm`, on the
// intra-op pool. REQUIRES: out has the permuted shape.
template <typename T>
absl::Status CpuTransposeImage(OpKernelContext* ctx, const Tensor& in,
                               const std::array<int, 4>& perm, Tensor* out) {
  out->shaped<T, 4>(out->shape().dim_sizes()).device(ctx->eigen_cpu_device()) =
      in.shaped<T, 4>(in.shape().dim_sizes()).shuffle(perm);
  return absl::OkStatus();
}

#ifdef MINITF_WITH_CUDA
// The same for a float tensor in a GPU's memory, on ctx's compute stream.
absl::Status CudaTransposeImage(OpKernelContext* ctx, const Tensor& in,
                                const std::array<int, 4>& perm, Tensor* out);
#endif

// An NCHW `image` transposed into a new NHWC scratch tensor.
template <typename Device>
absl::Status ImageToNhwc(OpKernelContext* ctx, const Tensor& image, Tensor* nhwc) {
  MINITF_RETURN_IF_ERROR(
      ctx->allocate_temp(image.dtype(), Permuted(image.shape(), kNchwToNhwc), nhwc));
  if (image.NumElements() == 0) return absl::OkStatus();
  return Device::Transpose(ctx, image, kNchwToNhwc, nhwc);
}

// A new NHWC scratch tensor for the NCHW image output `output`.
inline absl::Status NhwcScratchFor(OpKernelContext* ctx, const Tensor& output, Tensor* nhwc) {
  return ctx->allocate_temp(output.dtype(), Permuted(output.shape(), kNchwToNhwc), nhwc);
}

// The NHWC result `nhwc` transposed into the (non-empty) NCHW `output`.
template <typename Device>
absl::Status ImageFromNhwc(OpKernelContext* ctx, const Tensor& nhwc, Tensor* output) {
  return Device::Transpose(ctx, nhwc, kNhwcToNchw, output);
}

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_IMAGE_LAYOUT_H_
