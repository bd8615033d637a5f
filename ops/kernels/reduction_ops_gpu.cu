// The CUDA reduction kernel of Sum, Mean and Max (see reduction_ops_gpu.h).
// A fold over contiguous elements (inner == 1) gives each row a block that
// reduces it in shared memory; otherwise each thread folds one output down
// its column, neighbouring threads reading neighbouring elements. Sums
// accumulate in double (`Acc`), so 10^8 floats sum as TensorFlow's blocked
// sums do, not with an error that grows with their number.
#include <limits>

#include "ops/kernels/cuda/block_reduce.cuh"
#include "ops/kernels/reduction_ops_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

template <typename Combine, typename Acc>
__global__ void ReduceRowsKernel(const float* in, int64_t rows, int64_t reduced, float identity,
                                 float divisor, float* out) {
  __shared__ Acc scratch[kRowBlockThreads];
  const Combine combine;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* x = in + row * reduced;
    Acc acc = identity;
    for (int64_t r = threadIdx.x; r < reduced; r += blockDim.x) {
      acc = combine(acc, static_cast<Acc>(x[r]));
    }
    acc = BlockReduce(acc, combine, scratch);
    if (threadIdx.x == 0) out[row] = static_cast<float>(acc / divisor);
  }
}

template <typename Combine, typename Acc>
__global__ void ReduceColumnsKernel(const float* in, int64_t outer, int64_t reduced,
                                    int64_t inner, float identity, float divisor, float* out) {
  const Combine combine;
  for (int64_t i = FirstIndex(); i < outer * inner; i += IndexStride()) {
    const float* x = in + (i / inner) * reduced * inner + i % inner;
    Acc acc = identity;
    for (int64_t r = 0; r < reduced; ++r) acc = combine(acc, static_cast<Acc>(x[r * inner]));
    out[i] = static_cast<float>(acc / divisor);
  }
}

template <typename Combine, typename Acc>
cudaError_t Launch(cudaStream_t stream, const float* in, int64_t outer, int64_t reduced,
                   int64_t inner, float identity, float divisor, float* out) {
  if (outer * inner == 0) return cudaSuccess;
  if (inner == 1) {
    const unsigned blocks = static_cast<unsigned>(outer < 65535 ? outer : 65535);
    ReduceRowsKernel<Combine, Acc><<<blocks, kRowBlockThreads, 0, stream>>>(
        in, outer, reduced, identity, divisor, out);
  } else {
    const LaunchConfig config = LaunchConfigFor(outer * inner);
    ReduceColumnsKernel<Combine, Acc><<<config.blocks, config.threads, 0, stream>>>(
        in, outer, reduced, inner, identity, divisor, out);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchReduceMiddle(cudaStream_t stream, ReductionKind kind, const float* in,
                               int64_t outer, int64_t reduced, int64_t inner, float divisor,
                               float* out) {
  switch (kind) {
    case ReductionKind::kSum:
      return Launch<SumOf, double>(stream, in, outer, reduced, inner, 0.0f, divisor, out);
    case ReductionKind::kMax:
      return Launch<MaxOf, float>(stream, in, outer, reduced, inner,
                           -std::numeric_limits<float>::infinity(), divisor, out);
  }
  return cudaErrorInvalidValue;
}

}  // namespace minitf::gpu
