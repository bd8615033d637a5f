// Launcher of the CUDA kernel behind Select and SelectV2
// (cwise_op_select.cc): out = cond ? t : e over a walk of the output, each
// operand addressed by its own element strides (0 where it is stretched).
// Plain types only; enqueues on `stream` and returns the launch's error.
//
//   SelectWalkParams p = ...;   // see cwise_op_select.cc
//   LaunchSelect(stream, sizeof(float), p, cond, t, e, out);
#ifndef MINITF_OPS_KERNELS_CWISE_OP_SELECT_GPU_H_
#define MINITF_OPS_KERNELS_CWISE_OP_SELECT_GPU_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace minitf::gpu {

inline constexpr int kMaxSelectRank = 8;

struct SelectWalkParams {
  int rank = 0;
  int64_t dims[kMaxSelectRank] = {};
  int64_t cond_strides[kMaxSelectRank] = {};
  int64_t t_strides[kMaxSelectRank] = {};
  int64_t e_strides[kMaxSelectRank] = {};
  int64_t count = 1;  // the product of dims
};

// `element_size`: 1, 2, 4, 8 or 16 bytes (cudaErrorInvalidValue otherwise).
cudaError_t LaunchSelect(cudaStream_t stream, size_t element_size, const SelectWalkParams& params,
                         const bool* cond, const void* t, const void* e, void* out);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_CWISE_OP_SELECT_GPU_H_
