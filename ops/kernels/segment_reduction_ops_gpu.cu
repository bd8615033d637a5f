// The CUDA kernel of UnsortedSegmentSum (segment_reduction_ops_gpu.h): one
// thread per element of data (a grid-stride loop) adds it to its segment's
// row with atomicAdd, so the order of a segment's additions, and the last
// bits of its sum, vary from run to run (as in TensorFlow's GPU kernel).
#include "ops/kernels/segment_reduction_ops_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

template <typename Index>
__global__ void SegmentSumKernel(const float* data, const Index* ids, int64_t count, int64_t inner,
                                 float* out) {
  for (int64_t i = FirstIndex(); i < count; i += IndexStride()) {
    const int64_t id = static_cast<int64_t>(ids[i / inner]);
    if (id < 0) continue;  // Negative ids are dropped.
    atomicAdd(out + id * inner + i % inner, data[i]);
  }
}

}  // namespace

cudaError_t LaunchUnsortedSegmentSum(cudaStream_t stream, const float* data, const void* ids,
                                     bool ids_int64, int64_t n, int64_t inner, int64_t num_segments,
                                     float* out) {
  const int64_t out_count = num_segments * inner;
  if (out_count == 0) return cudaSuccess;
  cudaError_t error = cudaMemsetAsync(out, 0, out_count * sizeof(float), stream);
  if (error != cudaSuccess) return error;
  const int64_t count = n * inner;
  if (count == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(count);
  if (ids_int64) {
    SegmentSumKernel<int64_t><<<config.blocks, config.threads, 0, stream>>>(
        data, static_cast<const int64_t*>(ids), count, inner, out);
  } else {
    SegmentSumKernel<int32_t><<<config.blocks, config.threads, 0, stream>>>(
        data, static_cast<const int32_t*>(ids), count, inner, out);
  }
  return cudaGetLastError();
}

}  // namespace minitf::gpu
