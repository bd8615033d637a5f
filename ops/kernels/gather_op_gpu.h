// Launcher of the CUDA kernel behind GatherV2 (gather_op.cc): with params
// viewed as [batch, outer, limit, inner] and indices as [batch, n],
// out[b, o, j, :] = params[b, o, indices[b, j], :]. Indices are checked
// before the launch. Plain types only; enqueues on `stream` and returns
// the launch's error.
#ifndef MINITF_OPS_KERNELS_GATHER_OP_GPU_H_
#define MINITF_OPS_KERNELS_GATHER_OP_GPU_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace minitf::gpu {

struct GatherParams {
  int64_t batch = 1;
  int64_t outer = 1;
  int64_t limit = 0;  // params' size along the gathered axis
  int64_t inner = 1;
  int64_t n = 0;  // indices per batch
};

// `indices`: batch * n int64 values when `indices_int64`, else int32, in
// device memory. `element_size`: 1, 2, 4, 8 or 16 bytes (cudaErrorInvalidValue
// otherwise).
cudaError_t LaunchGather(cudaStream_t stream, size_t element_size, const GatherParams& p,
                         const void* params, const void* indices, bool indices_int64, void* out);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_GATHER_OP_GPU_H_
