// Launcher of the CUDA kernel behind ScatterAdd (variable_ops.cc), float:
// var[indices[i], :] += updates[i, :] (or += the scalar *updates when
// `scalar_update`), by atomicAdd, so repeated indices add up. The indices
// are checked before the launch. Plain types only; enqueues on `stream`
// and returns the launch's error.
#ifndef MINITF_OPS_KERNELS_SCATTER_ADD_GPU_H_
#define MINITF_OPS_KERNELS_SCATTER_ADD_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::gpu {

// `indices`: num_indices int64 values when `indices_int64`, else int32, in
// device memory; `var`: rows of `row_size` floats.
cudaError_t LaunchScatterAdd(cudaStream_t stream, float* var, int64_t row_size, const void* indices,
                             bool indices_int64, int64_t num_indices, const float* updates,
                             bool scalar_update);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_SCATTER_ADD_GPU_H_
