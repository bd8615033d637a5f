// Launchers of the CUDA kernels behind Unique (unique_op.cc) for float and
// int64 values: a stable radix sort of the values with their positions,
// groups of equal neighbours, each group's first position (atomicMin), and
// the groups numbered in the order of those first positions (a scan over
// the positions marked first), so y keeps the order in which values first
// appear, as the CPU kernel's does. Plain types only; enqueues on `stream`
// and returns the first launch error.
//
//   size_t bytes;
//   UniqueScratchBytes<float>(n, &bytes);                 // then allocate them
//   LaunchUnique<float, int32_t>(stream, x, n, scratch, bytes, y, idx, num_unique);
#ifndef MINITF_OPS_KERNELS_UNIQUE_OP_GPU_H_
#define MINITF_OPS_KERNELS_UNIQUE_OP_GPU_H_

#include <cuda_runtime_api.h>

#include <cstddef>

namespace minitf::gpu {

// The device scratch LaunchUnique<T, ...> needs for n values. T: float or
// int64_t.
template <typename T>
cudaError_t UniqueScratchBytes(int n, size_t* bytes);

// For the n > 0 values x (device memory): y[0, u) the distinct values in
// the order they first appear, idx[i] the position of x[i] in y, and
// *num_unique = u, all written to device memory (y has room for n).
// Equal values are those that compare equal (-0.0 and 0.0 are one value;
// every NaN is a value of its own), as in the CPU kernel's hash map.
// `scratch`: UniqueScratchBytes<T>(n) bytes of device memory. TIndex:
// int32_t or int64_t.
template <typename T, typename TIndex>
cudaError_t LaunchUnique(cudaStream_t stream, const T* x, int n, void* scratch,
                         size_t scratch_bytes, T* y, TIndex* idx, int* num_unique);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_UNIQUE_OP_GPU_H_
