// Launcher of the CUDA kernel that finds the first out-of-range index of a
// gather, scatter or segment sum (cuda_indices.h). Plain types only;
// enqueues on `stream` and returns the launch's error.
#ifndef MINITF_OPS_KERNELS_CUDA_INDEX_CHECK_GPU_H_
#define MINITF_OPS_KERNELS_CUDA_INDEX_CHECK_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::gpu {

// Sets *first_bad (device memory) to the least i in [0, n) with indices[i]
// outside [lower, limit), or to n when there is none. `indices`: n int64
// values when `is_int64`, else n int32 values, in device memory.
cudaError_t LaunchFindBadIndex(cudaStream_t stream, const void* indices, bool is_int64, int64_t n,
                               int64_t lower, int64_t limit, int64_t* first_bad);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_CUDA_INDEX_CHECK_GPU_H_
