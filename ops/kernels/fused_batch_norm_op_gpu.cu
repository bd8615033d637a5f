// CUDA kernels of FusedBatchNorm(V3) and its gradient (see
// fused_batch_norm_op_gpu.h): block c handles channel c, its threads
// striding over the channel's outer * inner elements.
#include "ops/kernels/cuda/block_reduce.cuh"
#include "ops/kernels/fused_batch_norm_op_gpu.h"

namespace minitf::gpu {
namespace {

// Element j of channel c.
__device__ int64_t At(const BatchNormDims& d, int64_t c, int64_t j) {
  return ((j / d.inner) * d.channels + c) * d.inner + j % d.inner;
}

// The sum of every thread's `value`, to every thread (block_reduce.cuh).
__device__ double BlockSum(double value, double* scratch) {
  return BlockReduce(value, SumOf(), scratch);
}

__global__ void ForwardKernel(BatchNormDims d, float epsilon, float factor, bool is_training,
                              BatchNormForward a) {
  __shared__ double scratch[kRowBlockThreads];
  const int64_t c = blockIdx.x;
  const int64_t n = d.outer * d.inner;
  double mean = a.mean != nullptr ? a.mean[c] : 0.0;
  double variance = a.variance != nullptr ? a.variance[c] : 0.0;
  if (is_training) {
    double sum = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) sum += a.x[At(d, c, j)];
    mean = BlockSum(sum, scratch) / static_cast<double>(n);
    double squares = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const double centered = a.x[At(d, c, j)] - mean;
      squares += centered * centered;
    }
    variance = BlockSum(squares, scratch) / static_cast<double>(n);
  }
  const double multiplier = a.scale[c] / sqrt(variance + epsilon);
  if (threadIdx.x == 0) {
    a.reserve_1[c] = static_cast<float>(mean);
    a.reserve_2[c] = static_cast<float>(variance);
    if (!is_training) {
      a.batch_mean[c] = a.mean[c];
      a.batch_variance[c] = a.variance[c];
    } else {
      const double adjust = static_cast<double>(n) / static_cast<double>(n > 1 ? n - 1 : 1);
      if (factor == 1.0f) {
        a.batch_mean[c] = static_cast<float>(mean);
        a.batch_variance[c] = static_cast<float>(variance * adjust);
      } else {
        a.batch_mean[c] = static_cast<float>((1.0 - factor) * a.mean[c] + factor * mean);
        a.batch_variance[c] =
            static_cast<float>((1.0 - factor) * a.variance[c] + factor * adjust * variance);
      }
    }
  }
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const int64_t at = At(d, c, j);
    a.y[at] = static_cast<float>((a.x[at] - mean) * multiplier + a.offset[c]);
  }
}

__global__ void BackwardKernel(BatchNormDims d, float epsilon, bool is_training,
                               BatchNormBackward a) {
  __shared__ double scratch[kRowBlockThreads];
  const int64_t c = blockIdx.x;
  const int64_t n = d.outer * d.inner;
  const double mean = a.mean[c];
  double sum_dy = 0, sum_dy_xc = 0;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const int64_t at = At(d, c, j);
    sum_dy += a.y_backprop[at];
    sum_dy_xc += static_cast<double>(a.y_backprop[at]) * (a.x[at] - mean);
  }
  sum_dy = BlockSum(sum_dy, scratch);
  sum_dy_xc = BlockSum(sum_dy_xc, scratch);
  const double r = 1.0 / sqrt(static_cast<double>(a.variance[c]) + epsilon);
  if (threadIdx.x == 0) {
    a.offset_backprop[c] = static_cast<float>(sum_dy);
    a.scale_backprop[c] = static_cast<float>(sum_dy_xc * r);
  }
  const double coef = a.scale[c] * r;
  const double count = static_cast<double>(n);
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const int64_t at = At(d, c, j);
    if (!is_training) {
      a.x_backprop[at] = static_cast<float>(coef * a.y_backprop[at]);
    } else {
      const double xc = static_cast<double>(a.x[at]) - mean;
      a.x_backprop[at] = static_cast<float>(
          coef * (a.y_backprop[at] - sum_dy / count - xc * r * r * sum_dy_xc / count));
    }
  }
}

}  // namespace

cudaError_t LaunchBatchNormForward(cudaStream_t stream, const BatchNormDims& dims, float epsilon,
                                   float factor, bool is_training, const BatchNormForward& args) {
  if (dims.channels == 0) return cudaSuccess;
  BatchNormForward a = args;
  // Training with factor 1 reads neither (they may be empty).
  if (is_training && factor == 1.0f) a.mean = a.variance = nullptr;
  ForwardKernel<<<static_cast<unsigned>(dims.channels), kRowBlockThreads, 0, stream>>>(
      dims, epsilon, factor, is_training, a);
  return cudaGetLastError();
}

cudaError_t LaunchBatchNormBackward(cudaStream_t stream, const BatchNormDims& dims,
                                    float epsilon, bool is_training,
                                    const BatchNormBackward& args) {
  if (dims.channels == 0) return cudaSuccess;
  BackwardKernel<<<static_cast<unsigned>(dims.channels), kRowBlockThreads, 0, stream>>>(
      dims, epsilon, is_training, args);
  return cudaGetLastError();
}

}  // namespace minitf::gpu
