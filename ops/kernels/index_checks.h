// Finding the first out-of-range element of the indices that gathers,
// scatters and segment sums take (int32 or int64 tensors of any shape), so
// an op's CPU and CUDA kernels fail with the same message. The CUDA kernels
// find it on the device when their indices live there
// (cuda/cuda_indices.h).
//
//   std::optional<BadIndex> bad = FindBadIndexOnHost(indices, 0, limit);
//   if (bad) return Error(absl::StrCat("indices[", bad->position, "] = ", bad->value, ...));
#ifndef MINITF_OPS_KERNELS_INDEX_CHECKS_H_
#define MINITF_OPS_KERNELS_INDEX_CHECKS_H_

#include <cstdint>
#include <limits>
#include <optional>

#include "absl/status/statusor.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf {

// An element of an index tensor outside its range: its position in the
// tensor (row-major) and its value.
struct BadIndex {
  int64_t position = 0;
  int64_t value = 0;
};

// No lower bound: the segment sums drop negative ids instead of failing.
inline constexpr int64_t kNoLowerBound = std::numeric_limits<int64_t>::min();

// The first element of `indices` outside [lower, limit), if any.
// REQUIRES: indices is int32 or int64 (the ops' type constraints) and in
// memory the calling thread may read.
std::optional<BadIndex> FindBadIndexOnHost(const Tensor& indices, int64_t lower, int64_t limit);

// The FindBadIndex of a device policy whose kernels read their indices on
// the host (every CPU kernel); the CUDA kernels' is CudaIndexCheck
// (cuda/cuda_indices.h). A policy inherits it:
//
//   struct CpuGather : HostIndexCheck { static absl::Status Gather(...); };
struct HostIndexCheck {
  // The first element of input `input` outside [lower, limit), if any.
  static absl::StatusOr<std::optional<BadIndex>> FindBadIndex(OpKernelContext* ctx, int input,
                                                              int64_t lower, int64_t limit) {
    return FindBadIndexOnHost(ctx->input(input), lower, limit);
  }
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_INDEX_CHECKS_H_
