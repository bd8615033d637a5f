// Launcher of the Cast CUDA kernel (cast_op_gpu.cu) between the element types
// CUDA devices keep in device memory. Plain types only, so the .cu file
// stays free of minitf's heavier headers.
//
//   cudaError_t e = LaunchCast(stream, CastType::kFloat, CastType::kInt64, n, x, y);
#ifndef MINITF_OPS_KERNELS_CAST_OP_GPU_H_
#define MINITF_OPS_KERNELS_CAST_OP_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::gpu {

// float, double, int64_t and bool.
enum class CastType { kFloat, kDouble, kInt64, kBool };

// y[i] = static_cast<Dst>(x[i]) for i in [0, n): floating to integer
// truncates toward zero, anything to bool is x != 0, bool to a number is 0
// or 1. Enqueues on `stream` and returns the launch's error.
// REQUIRES: y does not overlap x.
cudaError_t LaunchCast(cudaStream_t stream, CastType src, CastType dst, int64_t n, const void* x,
                       void* y);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_CAST_OP_GPU_H_
