// The index inputs of the CUDA gather, scatter, segment-sum and one-hot
// kernels. On a GPU, int32 indices live in host memory (memory_types.h) and
// int64 indices in device memory; these helpers hide which:
//
//   MINITF_ASSIGN_OR_RETURN(std::optional<BadIndex> bad, FindBadIndexCuda(ctx, 1, 0, limit));
//   if (bad) return ...;                       // the CPU kernel's message
//   MINITF_ASSIGN_OR_RETURN(Tensor indices, IndicesOnDevice(ctx, 1));
//   ... launch with indices.raw_data() ...
//
// TensorFlow's GPU kernels do not check indices (a gather writes zeros for
// a bad one); these fail the node as the CPU kernels do. Checking indices
// that are in device memory waits for the compute stream: the answer is
// copied back before the kernel goes on.
#ifndef MINITF_OPS_KERNELS_CUDA_CUDA_INDICES_H_
#define MINITF_OPS_KERNELS_CUDA_CUDA_INDICES_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "ops/kernels/index_checks.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf {

// The first element of input `input` (int32 or int64 indices) outside
// [lower, limit), if any: read on the host when the input is in host
// memory, found by a CUDA kernel otherwise. Errors name the node.
absl::StatusOr<std::optional<BadIndex>> FindBadIndexCuda(OpKernelContext* ctx, int input,
                                                         int64_t lower, int64_t limit);

// The FindBadIndex of the CUDA kernels' device policies (index_checks.h's
// HostIndexCheck is the CPU's).
struct CudaIndexCheck {
  static absl::StatusOr<std::optional<BadIndex>> FindBadIndex(OpKernelContext* ctx, int input,
                                                              int64_t lower, int64_t limit) {
    return FindBadIndexCuda(ctx, input, lower, limit);
  }
};

// Input `input` in this GPU's memory: the input itself, or, when it is in
// host memory, a device copy enqueued on the compute stream (the host
// buffer is kept until the copy has run). Errors name the node.
absl::StatusOr<Tensor> IndicesOnDevice(OpKernelContext* ctx, int input);

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_CUDA_CUDA_INDICES_H_
