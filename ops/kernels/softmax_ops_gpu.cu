// The row-wise CUDA kernels of Softmax and SparseSoftmaxCrossEntropyWithLogits
// (see softmax_ops_gpu.h): one block per row, three passes over it (maximum,
// sum of shifted exponentials, output), with block-wide reductions.
#include <math_constants.h>

#include "ops/kernels/cuda/block_reduce.cuh"
#include "ops/kernels/softmax_ops_gpu.h"

namespace minitf::gpu {
namespace {

unsigned RowBlocks(int64_t rows) { return static_cast<unsigned>(rows < 65535 ? rows : 65535); }

// The row's maximum and the sum of exp(x - maximum), to every thread.
struct RowStats {
  float max;
  float sum_exp;
};

__device__ RowStats StatsOfRow(const float* x, int64_t classes, float* scratch) {
  float m = -CUDART_INF_F;
  for (int64_t j = threadIdx.x; j < classes; j += blockDim.x) m = MaxOf()(m, x[j]);
  m = BlockReduce(m, MaxOf(), scratch);
  // The sum in double, as the CPU kernels add it.
  __shared__ double sum_scratch[kRowBlockThreads];
  double s = 0.0;
  for (int64_t j = threadIdx.x; j < classes; j += blockDim.x) s += expf(x[j] - m);
  s = BlockReduce(s, SumOf(), sum_scratch);
  return {m, static_cast<float>(s)};
}

__global__ void SoftmaxKernel(const float* logits, int64_t rows, int64_t classes,
                              float* softmax) {
  __shared__ float scratch[kRowBlockThreads];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* x = logits + row * classes;
    float* y = softmax + row * classes;
    const RowStats stats = StatsOfRow(x, classes, scratch);
    // In place is safe: each element is read, then written, by one thread.
    for (int64_t j = threadIdx.x; j < classes; j += blockDim.x) {
      y[j] = expf(x[j] - stats.max) / stats.sum_exp;
    }
    __syncthreads();
  }
}

template <typename Label>
__global__ void SparseXentKernel(const float* features, const Label* labels, int64_t batch,
                                 int64_t classes, float* loss, float* backprop) {
  __shared__ float scratch[kRowBlockThreads];
  for (int64_t row = blockIdx.x; row < batch; row += gridDim.x) {
    const float* f = features + row * classes;
    float* grad = backprop + row * classes;
    const int64_t label = static_cast<int64_t>(labels[row]);
    const RowStats stats = StatsOfRow(f, classes, scratch);
    for (int64_t j = threadIdx.x; j < classes; j += blockDim.x) {
      grad[j] = expf(f[j] - stats.max) / stats.sum_exp - (j == label ? 1.0f : 0.0f);
    }
    if (threadIdx.x == 0) loss[row] = logf(stats.sum_exp) - (f[label] - stats.max);
  }
}

template <typename Label>
cudaError_t LaunchXent(cudaStream_t stream, const float* features, const Label* labels,
                       int64_t batch, int64_t classes, float* loss, float* backprop) {
  if (batch == 0) return cudaSuccess;
  SparseXentKernel<Label><<<RowBlocks(batch), kRowBlockThreads, 0, stream>>>(
      features, labels, batch, classes, loss, backprop);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchSoftmax(cudaStream_t stream, const float* logits, int64_t rows,
                          int64_t classes, float* softmax) {
  if (rows * classes == 0) return cudaSuccess;
  SoftmaxKernel<<<RowBlocks(rows), kRowBlockThreads, 0, stream>>>(logits, rows, classes,
                                                                  softmax);
  return cudaGetLastError();
}

cudaError_t LaunchSparseSoftmaxXent(cudaStream_t stream, const float* features,
                                    const int32_t* labels, int64_t batch, int64_t classes,
                                    float* loss, float* backprop) {
  return LaunchXent(stream, features, labels, batch, classes, loss, backprop);
}

cudaError_t LaunchSparseSoftmaxXent(cudaStream_t stream, const float* features,
                                    const int64_t* labels, int64_t batch, int64_t classes,
                                    float* loss, float* backprop) {
  return LaunchXent(stream, features, labels, batch, classes, loss, backprop);
}

}  // namespace minitf::gpu
