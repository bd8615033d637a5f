// BlockReduce: folds one value per thread of a CUDA block into one, for the
// row-wise kernels (reductions, softmax). Sums of many floats accumulate in
// double, so their error does not grow with the row's length. Device code
// only.
//
//   __shared__ float scratch[kRowBlockThreads];
//   const float row_max = BlockReduce(my_max, MaxOf(), scratch);
#ifndef MINITF_OPS_KERNELS_CUDA_BLOCK_REDUCE_CUH_
#define MINITF_OPS_KERNELS_CUDA_BLOCK_REDUCE_CUH_

namespace minitf::gpu {

// The block size of row-wise kernels: one block per row.
inline constexpr int kRowBlockThreads = 256;

struct SumOf {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
// As std::max, which Eigen's max reduction uses.
struct MaxOf {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};

// Returns the fold of every thread's `value` to every thread. REQUIRES: all
// threads of the block call it; blockDim.x == kRowBlockThreads; `scratch`
// holds kRowBlockThreads values of shared memory, free again on return.
template <typename T, typename Combine>
__device__ T BlockReduce(T value, Combine combine, T* scratch) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (unsigned half = kRowBlockThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      scratch[threadIdx.x] = combine(scratch[threadIdx.x], scratch[threadIdx.x + half]);
    }
    __syncthreads();
  }
  const T result = scratch[0];
  __syncthreads();
  return result;
}

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_CUDA_BLOCK_REDUCE_CUH_
