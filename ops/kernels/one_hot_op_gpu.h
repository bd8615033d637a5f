// Launcher of the CUDA kernel behind OneHot (one_hot_op.cc): with the
// output viewed as [prefix, depth, suffix], out[p, d, s] = *on_value where
// indices[p, s] == d and *off_value elsewhere (an index outside [0, depth)
// gives a row of off_value). Plain types only; enqueues on `stream` and
// returns the launch's error.
#ifndef MINITF_OPS_KERNELS_ONE_HOT_OP_GPU_H_
#define MINITF_OPS_KERNELS_ONE_HOT_OP_GPU_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace minitf::gpu {

// `indices`: prefix * suffix int64 values when `indices_int64`, else int32;
// `on_value`, `off_value`: one element each. All in device memory.
// `element_size`: 1, 2, 4, 8 or 16 bytes (cudaErrorInvalidValue otherwise).
cudaError_t LaunchOneHot(cudaStream_t stream, size_t element_size, const void* indices,
                         bool indices_int64, int64_t prefix, int64_t depth, int64_t suffix,
                         const void* on_value, const void* off_value, void* out);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_ONE_HOT_OP_GPU_H_
