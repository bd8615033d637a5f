// Launcher of the CUDA kernel behind UnsortedSegmentSum
// (segment_reduction_ops.cc), float: with data viewed as [n, inner],
// out[ids[j], :] += data[j, :] for every j with ids[j] >= 0, by atomicAdd
// into `out`, which the launcher first sets to zero. The ids are checked
// (< num_segments) before the launch. Plain types only; enqueues on
// `stream` and returns the launch's error.
#ifndef MINITF_OPS_KERNELS_SEGMENT_REDUCTION_OPS_GPU_H_
#define MINITF_OPS_KERNELS_SEGMENT_REDUCTION_OPS_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::gpu {

// `ids`: n int64 values when `ids_int64`, else int32, in device memory.
// `out`: num_segments * inner floats.
cudaError_t LaunchUnsortedSegmentSum(cudaStream_t stream, const float* data, const void* ids,
                                     bool ids_int64, int64_t n, int64_t inner, int64_t num_segments,
                                     float* out);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_SEGMENT_REDUCTION_OPS_GPU_H_
