// HostMover and CudaMover: where an array kernel (Pad, Slice,
// StridedSlice, Tile, ConcatV2, Split, Pack, Unpack, BroadcastTo) moves its
// elements. One kernel class serves every device, with the mover as its
// template argument, so the GPU kernels share the CPU kernels' checks:
//
//   template <typename Mover>
//   class PadOp : public OpKernel { ... OP_REQUIRES_OK(ctx, Mover::Copy(ctx, ...)); };
//   REGISTER_KERNEL_BUILDER(Name("Pad").Device(DEVICE_CPU)..., PadOp<HostMover>);
//   REGISTER_KERNEL_BUILDER(Name("Pad").Device(DEVICE_GPU).Platform("CUDA")..., PadOp<CudaMover>);
//
//   HostMover  the host's memory: CPU kernels, and the SimGPU twins that
//              wrap them (strided_copy.h);
//   CudaMover  a CUDA GPU's memory, on the kernel's compute stream
//              (cuda/cuda_mover.h, strided_copy_gpu.cu); errors name the
//              node.
#ifndef MINITF_OPS_KERNELS_ELEMENT_MOVER_H_
#define MINITF_OPS_KERNELS_ELEMENT_MOVER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ops/kernels/strided_copy.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_mover.h"
#endif

namespace minitf {

struct HostMover {
  // CopyStrided's copy.
  static absl::Status Copy(OpKernelContext*, size_t element_size, absl::Span<const int64_t> shape,
                           const void* src, int64_t src_offset,
                           absl::Span<const int64_t> src_strides, void* dst, int64_t dst_offset,
                           absl::Span<const int64_t> dst_strides) {
    CopyStrided(element_size, shape, src, src_offset, src_strides, dst, dst_offset, dst_strides);
    return absl::OkStatus();
  }
  // Every element of `t` set to `value`, a scalar of t's dtype in host memory.
  static absl::Status Fill(OpKernelContext*, const Tensor& value, Tensor* t) {
    FillWithScalar(value, t);
    return absl::OkStatus();
  }
  // Every byte of `t` set to 0.
  static absl::Status Zero(OpKernelContext*, Tensor* t) {
    if (t->TotalBytes() > 0) std::memset(t->raw_data(), 0, t->TotalBytes());
    return absl::OkStatus();
  }
};

// The dtypes the array kernels' CUDA registrations take: not int32, which
// stays in host memory on GPU devices (cuda_kernel_set.h).
inline std::vector<DataType> GpuArrayTypes() { return {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL}; }

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_ELEMENT_MOVER_H_
