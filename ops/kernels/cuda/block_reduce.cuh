// BlockReduce: folds one float per thread of a CUDA block into one value,
// for the row-wise kernels (reductions, softmax). Device code only.
//
//   __shared__ float scratch[kRowBlockThreads];
//   const float row_max = BlockReduce(my_max, MaxOf(), scratch);
#ifndef MINITF_OPS_KERNELS_CUDA_BLOCK_REDUCE_CUH_
#define MINITF_OPS_KERNELS_CUDA_BLOCK_REDUCE_CUH_

namespace minitf::gpu {

// The block size of row-wise kernels: one block per row.
inline constexpr int kRowBlockThreads = 256;

struct SumOf {
  __device__ float operator()(float a, float b) const { return a + b; }
};
// As std::max, which Eigen's max reduction uses.
struct MaxOf {
  __device__ float operator()(float a, float b) const { return a < b ? b : a; }
};

// Returns the fold of every thread's `value` to every thread. REQUIRES: all
// threads of the block call it; blockDim.x == kRowBlockThreads; `scratch`
// holds kRowBlockThreads floats of shared memory, free again on return.
template <typename Combine>
__device__ float BlockReduce(float value, Combine combine, float* scratch) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (unsigned half = kRowBlockThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      scratch[threadIdx.x] = combine(scratch[threadIdx.x], scratch[threadIdx.x + half]);
    }
    __syncthreads();
  }
  const float result = scratch[0];
  __syncthreads();
  return result;
}

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_CUDA_BLOCK_REDUCE_CUH_
