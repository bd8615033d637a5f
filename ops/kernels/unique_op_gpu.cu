// The CUDA kernels of Unique (unique_op_gpu.h). With s the values sorted
// stably and p their positions in x:
//   head[i]    s[i] starts a group (i == 0 or s[i] != s[i - 1]);
//   group[i]   1 + the number of the group of s[i] (an inclusive scan of head);
//   first[g]   the least position of group g's values (atomicMin);
//   mark[q]    1 where q is some group's first position;
//   order[q]   the exclusive scan of mark: group g's place in y is order[first[g]].
#include <climits>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "ops/kernels/unique_op_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

constexpr size_t kAlign = 256;
constexpr int kIntArrays = 7;  // pos_in, pos_out, head, group, first, mark, order

size_t Aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// The scratch, carved out of one buffer.
template <typename T>
struct Scratch {
  int* pos_in;
  int* pos_out;
  int* head;
  int* group;
  int* first;
  int* mark;
  int* order;
  T* sorted;
  void* cub_temp;
  size_t cub_temp_bytes;
};

template <typename T>
cudaError_t CubTempBytes(int n, size_t* bytes) {
  size_t sort_bytes = 0, scan_bytes = 0;
  cudaError_t error = cub::DeviceRadixSort::SortPairs(
      nullptr, sort_bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
      static_cast<const int*>(nullptr), static_cast<int*>(nullptr), n);
  if (error != cudaSuccess) return error;
  error = cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, static_cast<const int*>(nullptr),
                                        static_cast<int*>(nullptr), n);
  if (error != cudaSuccess) return error;
  size_t exclusive_bytes = 0;
  error = cub::DeviceScan::ExclusiveSum(nullptr, exclusive_bytes, static_cast<const int*>(nullptr),
                                        static_cast<int*>(nullptr), n);
  if (error != cudaSuccess) return error;
  *bytes = sort_bytes;
  if (scan_bytes > *bytes) *bytes = scan_bytes;
  if (exclusive_bytes > *bytes) *bytes = exclusive_bytes;
  return cudaSuccess;
}

template <typename T>
Scratch<T> Carve(void* buffer, int n, size_t cub_temp_bytes) {
  char* p = static_cast<char*>(buffer);
  const size_t ints = Aligned(sizeof(int) * n);
  Scratch<T> s;
  int** arrays[kIntArrays] = {&s.pos_in, &s.pos_out, &s.head, &s.group,
                              &s.first,  &s.mark,    &s.order};
  for (int** a : arrays) {
    *a = reinterpret_cast<int*>(p);
    p += ints;
  }
  s.sorted = reinterpret_cast<T*>(p);
  p += Aligned(sizeof(T) * n);
  s.cub_temp = p;
  s.cub_temp_bytes = cub_temp_bytes;
  return s;
}

__global__ void IotaKernel(int* out, int n) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) out[i] = static_cast<int>(i);
}

template <typename T>
__global__ void HeadKernel(const T* sorted, int n, int* head, int* first) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) {
    head[i] = i == 0 || sorted[i] != sorted[i - 1] ? 1 : 0;
    first[i] = INT_MAX;
  }
}

__global__ void FirstKernel(const int* group, const int* pos, int n, int* first) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) {
    atomicMin(first + group[i] - 1, pos[i]);
  }
}

__global__ void MarkKernel(const int* head, const int* group, const int* first, int n, int* mark) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) {
    if (head[i]) mark[first[group[i] - 1]] = 1;
  }
}

template <typename T, typename TIndex>
__global__ void OutputKernel(const T* x, const int* head, const int* group, const int* pos,
                             const int* first, const int* order, int n, T* y, TIndex* idx,
                             int* num_unique) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) {
    const int g = group[i] - 1;
    const int place = order[first[g]];
    idx[pos[i]] = static_cast<TIndex>(place);
    if (head[i]) y[place] = x[first[g]];
    if (i == n - 1) *num_unique = group[i];
  }
}

}  // namespace

template <typename T>
cudaError_t UniqueScratchBytes(int n, size_t* bytes) {
  size_t cub_bytes = 0;
  cudaError_t error = CubTempBytes<T>(n, &cub_bytes);
  if (error != cudaSuccess) return error;
  *bytes = kIntArrays * Aligned(sizeof(int) * n) + Aligned(sizeof(T) * n) + cub_bytes;
  return cudaSuccess;
}

template <typename T, typename TIndex>
cudaError_t LaunchUnique(cudaStream_t stream, const T* x, int n, void* scratch,
                         size_t scratch_bytes, T* y, TIndex* idx, int* num_unique) {
  if (n <= 0) return cudaErrorInvalidValue;
  size_t cub_bytes = 0;
  cudaError_t error = CubTempBytes<T>(n, &cub_bytes);
  if (error != cudaSuccess) return error;
  const size_t needed = kIntArrays * Aligned(sizeof(int) * n) + Aligned(sizeof(T) * n) + cub_bytes;
  if (scratch_bytes < needed) return cudaErrorInvalidValue;
  Scratch<T> s = Carve<T>(scratch, n, cub_bytes);
  const LaunchConfig config = LaunchConfigFor(n);

  IotaKernel<<<config.blocks, config.threads, 0, stream>>>(s.pos_in, n);
  size_t temp_bytes = s.cub_temp_bytes;
  error = cub::DeviceRadixSort::SortPairs(s.cub_temp, temp_bytes, x, s.sorted, s.pos_in, s.pos_out,
                                          n, 0, static_cast<int>(sizeof(T) * 8), stream);
  if (error != cudaSuccess) return error;
  HeadKernel<T><<<config.blocks, config.threads, 0, stream>>>(s.sorted, n, s.head, s.first);
  temp_bytes = s.cub_temp_bytes;
  error = cub::DeviceScan::InclusiveSum(s.cub_temp, temp_bytes, s.head, s.group, n, stream);
  if (error != cudaSuccess) return error;
  FirstKernel<<<config.blocks, config.threads, 0, stream>>>(s.group, s.pos_out, n, s.first);
  error = cudaMemsetAsync(s.mark, 0, sizeof(int) * n, stream);
  if (error != cudaSuccess) return error;
  MarkKernel<<<config.blocks, config.threads, 0, stream>>>(s.head, s.group, s.first, n, s.mark);
  temp_bytes = s.cub_temp_bytes;
  error = cub::DeviceScan::ExclusiveSum(s.cub_temp, temp_bytes, s.mark, s.order, n, stream);
  if (error != cudaSuccess) return error;
  OutputKernel<T, TIndex><<<config.blocks, config.threads, 0, stream>>>(
      x, s.head, s.group, s.pos_out, s.first, s.order, n, y, idx, num_unique);
  return cudaGetLastError();
}

template cudaError_t UniqueScratchBytes<float>(int, size_t*);
template cudaError_t UniqueScratchBytes<int64_t>(int, size_t*);
template cudaError_t LaunchUnique<float, int32_t>(cudaStream_t, const float*, int, void*, size_t,
                                                  float*, int32_t*, int*);
template cudaError_t LaunchUnique<float, int64_t>(cudaStream_t, const float*, int, void*, size_t,
                                                  float*, int64_t*, int*);
template cudaError_t LaunchUnique<int64_t, int32_t>(cudaStream_t, const int64_t*, int, void*,
                                                    size_t, int64_t*, int32_t*, int*);
template cudaError_t LaunchUnique<int64_t, int64_t>(cudaStream_t, const int64_t*, int, void*,
                                                    size_t, int64_t*, int64_t*, int*);

}  // namespace minitf::gpu
