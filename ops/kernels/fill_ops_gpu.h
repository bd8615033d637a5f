// Launcher of the fill CUDA kernel (fill_ops_gpu.cu), for Fill and OnesLike.
// Plain types only, so the .cu file stays free of minitf's heavier headers.
//
//   cudaError_t e = LaunchFill<float>(stream, n, 1.0f, y);
#ifndef MINITF_OPS_KERNELS_FILL_OPS_GPU_H_
#define MINITF_OPS_KERNELS_FILL_OPS_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::gpu {

// out[i] = value for i in [0, n). Enqueues on `stream` and returns the
// launch's error. Instantiated for float, double and int64_t.
template <typename T>
cudaError_t LaunchFill(cudaStream_t stream, int64_t n, T value, T* out);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_FILL_OPS_GPU_H_
