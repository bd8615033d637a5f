// The CUDA kernel of L2Loss (see l2loss_op_gpu.h): one block folds the
// squares in double, as Sum's full reduction does.
#include "ops/kernels/cuda/block_reduce.cuh"
#include "ops/kernels/l2loss_op_gpu.h"

namespace minitf::gpu {
namespace {

__global__ void L2LossKernel(const float* t, int64_t n, float* output) {
  __shared__ double scratch[kRowBlockThreads];
  double sum = 0.0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const double x = t[i];
    sum += x * x;
  }
  sum = BlockReduce(sum, SumOf(), scratch);
  if (threadIdx.x == 0) *output = static_cast<float>(sum / 2.0);
}

}  // namespace

cudaError_t LaunchL2Loss(cudaStream_t stream, const float* t, int64_t n, float* output) {
  L2LossKernel<<<1, kRowBlockThreads, 0, stream>>>(t, n, output);
  return cudaGetLastError();
}

}  // namespace minitf::gpu
