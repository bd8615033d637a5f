// Launcher of the CUDA reduction kernel (reduction_ops_gpu.cu) behind Sum, Mean
// and Max: folds the middle dimension of a [outer, reduced,
// inner] view. Plain types only; enqueues on `stream` and returns the
// launch's error.
//
//   LaunchReduceMiddle(stream, ReductionKind::kSum, in, outer, reduced, inner, 1.0f, out,
//                      scratch);
#ifndef MINITF_OPS_KERNELS_REDUCTION_OPS_GPU_H_
#define MINITF_OPS_KERNELS_REDUCTION_OPS_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::gpu {

// Sum folds from 0; Max from -infinity, comparing as std::max.
enum class ReductionKind { kSum, kMax };

// Bytes of device scratch LaunchReduceMiddle needs for this view (0: none).
// A long fold into few outputs is cut into chunks folded side by side, and
// their partials wait here for the second pass.
int64_t ReduceMiddleScratchBytes(int64_t outer, int64_t reduced, int64_t inner);

// out[o * inner + i] = (fold over r of in[(o * reduced + r) * inner + i]) / divisor.
// `scratch`: ReduceMiddleScratchBytes(outer, reduced, inner) bytes of device
// memory, 8-byte aligned, untouched by other work until the launch's work
// is done (nullptr when that is 0). REQUIRES: out does not overlap in.
cudaError_t LaunchReduceMiddle(cudaStream_t stream, ReductionKind kind, const float* in,
                               int64_t outer, int64_t reduced, int64_t inner, float divisor,
                               float* out, void* scratch);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_REDUCTION_OPS_GPU_H_
