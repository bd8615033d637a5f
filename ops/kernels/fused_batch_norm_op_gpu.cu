// CUDA kernels of FusedBatchNorm(V3) and its gradient (see
// fused_batch_norm_op_gpu.h), in three launches that each use the whole GPU:
//
//   1. partial sums: each channel's elements are cut into chunks, one block
//      per (channel tile or channel, chunk), folding two sums per element in
//      double (forward: x and x^2; backward: dy and dy * (x - mean));
//   2. per channel: the chunks' sums are folded, the statistics written and
//      the factors of step 3 kept in scratch;
//   3. per element: y (or x_backprop) from x, dy and the channel's factors.
//
// NHWC ([N*H*W, C, 1]) folds in 32-channel tiles, so a warp reads 32
// adjacent floats of a row; other layouts fold one channel per block.
#include <algorithm>

#include "ops/kernels/cuda/block_reduce.cuh"
#include "ops/kernels/fused_batch_norm_op_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfigFor;

constexpr int64_t kTargetBlocks = 1024;   // enough to fill any current GPU
constexpr int64_t kMinRowsPerChunk = 64;  // NHWC tiles
constexpr int64_t kMinPerChunk = 2048;    // one channel per block
constexpr int kTile = 32;                 // channels per NHWC block
constexpr int kTileRows = 8;              // rows a NHWC block reads at once

// How each channel's outer * inner elements are cut.
struct Chunks {
  int64_t count = 1;
  int64_t size = 1;  // elements per chunk (the last may have fewer)
};

Chunks ChunksOf(const BatchNormDims& d) {
  const int64_t n = d.outer * d.inner;
  const bool tiled = d.inner == 1;
  const int64_t columns = tiled ? (d.channels + kTile - 1) / kTile : d.channels;
  const int64_t wanted = (kTargetBlocks + columns - 1) / std::max<int64_t>(columns, 1);
  const int64_t most = std::max<int64_t>(1, n / (tiled ? kMinRowsPerChunk : kMinPerChunk));
  Chunks c;
  c.count = std::clamp<int64_t>(wanted, 1, most);
  c.size = (n + c.count - 1) / c.count;
  c.count = (n + c.size - 1) / c.size;
  return c;
}

// Element j (of outer * inner) of channel c.
__device__ int64_t At(const BatchNormDims& d, int64_t c, int64_t j) {
  return ((j / d.inner) * d.channels + c) * d.inner + j % d.inner;
}

__device__ double2 Add(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }

struct ForwardTerms {
  const float* x;
  __device__ double2 operator()(int64_t /*c*/, int64_t at) const {
    const double v = x[at];
    return make_double2(v, v * v);
  }
};

struct BackwardTerms {
  const float* y_backprop;
  const float* x;
  const float* mean;
  __device__ double2 operator()(int64_t c, int64_t at) const {
    const double g = y_backprop[at];
    return make_double2(g, g * (static_cast<double>(x[at]) - mean[c]));
  }
};

// NHWC: block (tile, chunk) folds rows [chunk * size, ...) of channels
// [tile * 32, tile * 32 + 32) into partials[chunk * channels + c].
template <typename Terms>
__global__ void TilePartialsKernel(BatchNormDims d, int64_t size, Terms terms, double2* partials) {
  __shared__ double2 folded[kTileRows][kTile + 1];
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kTile + threadIdx.x;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * size;
  const int64_t end = min(d.outer, begin + size);
  double2 sums = make_double2(0, 0);
  if (c < d.channels) {
    for (int64_t row = begin + threadIdx.y; row < end; row += kTileRows) {
      sums = Add(sums, terms(c, row * d.channels + c));
    }
  }
  folded[threadIdx.y][threadIdx.x] = sums;
  __syncthreads();
  if (threadIdx.y == 0 && c < d.channels) {
    for (int r = 1; r < kTileRows; ++r) sums = Add(sums, folded[r][threadIdx.x]);
    partials[blockIdx.y * d.channels + c] = sums;
  }
}

// Other layouts: block (c, chunk) folds elements [chunk * size, ...) of
// channel c.
template <typename Terms>
__global__ void ChannelPartialsKernel(BatchNormDims d, int64_t size, Terms terms,
                                      double2* partials) {
  __shared__ double scratch[kRowBlockThreads];
  const int64_t c = blockIdx.x;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * size;
  const int64_t end = min(d.outer * d.inner, begin + size);
  double2 sums = make_double2(0, 0);
  for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    sums = Add(sums, terms(c, At(d, c, j)));
  }
  const double first = BlockReduce(sums.x, SumOf(), scratch);
  const double second = BlockReduce(sums.y, SumOf(), scratch);
  if (threadIdx.x == 0) partials[blockIdx.y * d.channels + c] = make_double2(first, second);
}

template <typename Terms>
void LaunchPartials(cudaStream_t stream, const BatchNormDims& d, const Chunks& chunks, Terms terms,
                    double2* partials) {
  if (d.inner == 1) {
    const dim3 grid(static_cast<unsigned>((d.channels + kTile - 1) / kTile),
                    static_cast<unsigned>(chunks.count));
    TilePartialsKernel<<<grid, dim3(kTile, kTileRows), 0, stream>>>(d, chunks.size, terms,
                                                                    partials);
  } else {
    const dim3 grid(static_cast<unsigned>(d.channels), static_cast<unsigned>(chunks.count));
    ChannelPartialsKernel<<<grid, kRowBlockThreads, 0, stream>>>(d, chunks.size, terms, partials);
  }
}

__device__ double2 FoldChunks(const double2* partials, int64_t chunks, int64_t channels,
                              int64_t c) {
  double2 sums = make_double2(0, 0);
  for (int64_t k = 0; k < chunks; ++k) sums = Add(sums, partials[k * channels + c]);
  return sums;
}

// Per channel: the statistics and outputs of [channels], and in `factors`
// the mean ([0, channels)) and multiplier ([channels, 2 * channels)) that
// normalize x.
__global__ void ForwardChannelsKernel(BatchNormDims d, int64_t chunks, float epsilon, float factor,
                                      bool is_training, BatchNormForward a, const double2* partials,
                                      double* factors) {
  const int64_t n = d.outer * d.inner;
  for (int64_t c = FirstIndex(); c < d.channels; c += IndexStride()) {
    double mean, variance;
    if (is_training) {
      const double2 sums = FoldChunks(partials, chunks, d.channels, c);
      mean = sums.x / static_cast<double>(n);
      variance = max(0.0, sums.y / static_cast<double>(n) - mean * mean);
    } else {
      mean = a.mean[c];
      variance = a.variance[c];
    }
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
    factors[c] = mean;
    factors[d.channels + c] = a.scale[c] / sqrt(variance + epsilon);
  }
}

__global__ void NormalizeKernel(BatchNormDims d, int64_t total, const float* x, const float* offset,
                                const double* factors, const float* side_input, bool relu,
                                float* y) {
  for (int64_t e = FirstIndex(); e < total; e += IndexStride()) {
    const int64_t c = (e / d.inner) % d.channels;
    float v = static_cast<float>((x[e] - factors[c]) * factors[d.channels + c] + offset[c]);
    if (side_input != nullptr) v += side_input[e];
    // std::max(v, 0) as the CPU's Relu: NaN stays NaN.
    if (relu && v < 0.0f) v = 0.0f;
    y[e] = v;
  }
}

// Per channel: scale_backprop and offset_backprop, and in `factors` the
// three terms of x_backprop = coef * (dy - mean_dy - (x - mean) * k):
// coef, mean_dy and k at [0, C), [C, 2C) and [2C, 3C).
__global__ void BackwardChannelsKernel(BatchNormDims d, int64_t chunks, float epsilon,
                                       bool is_training, BatchNormBackward a,
                                       const double2* partials, double* factors) {
  const double count = static_cast<double>(d.outer * d.inner);
  for (int64_t c = FirstIndex(); c < d.channels; c += IndexStride()) {
    const double2 sums = FoldChunks(partials, chunks, d.channels, c);
    const double r = 1.0 / sqrt(static_cast<double>(a.variance[c]) + epsilon);
    a.offset_backprop[c] = static_cast<float>(sums.x);
    a.scale_backprop[c] = static_cast<float>(sums.y * r);
    factors[c] = a.scale[c] * r;
    factors[d.channels + c] = is_training ? sums.x / count : 0.0;
    factors[2 * d.channels + c] = is_training ? r * r * sums.y / count : 0.0;
  }
}

__global__ void InputGradientKernel(BatchNormDims d, int64_t total, BatchNormBackward a,
                                    const double* factors) {
  const int64_t channels = d.channels;
  for (int64_t e = FirstIndex(); e < total; e += IndexStride()) {
    const int64_t c = (e / d.inner) % channels;
    const double xc = static_cast<double>(a.x[e]) - a.mean[c];
    a.x_backprop[e] = static_cast<float>(
        factors[c] * (a.y_backprop[e] - factors[channels + c] - xc * factors[2 * channels + c]));
  }
}

struct ScratchLayout {
  double2* partials;
  double* factors;
};

ScratchLayout Carve(const BatchNormDims& d, const Chunks& chunks, void* scratch) {
  auto* partials = static_cast<double2*>(scratch);
  return {partials, reinterpret_cast<double*>(partials + chunks.count * d.channels)};
}

}  // namespace

int64_t BatchNormScratchBytes(const BatchNormDims& dims) {
  return ChunksOf(dims).count * dims.channels * static_cast<int64_t>(sizeof(double2)) +
         3 * dims.channels * static_cast<int64_t>(sizeof(double));
}

cudaError_t LaunchBatchNormForward(cudaStream_t stream, const BatchNormDims& dims, float epsilon,
                                   float factor, bool is_training, const BatchNormForward& args,
                                   void* scratch) {
  if (dims.channels == 0) return cudaSuccess;
  BatchNormForward a = args;
  // Training with factor 1 reads neither (they may be empty).
  if (is_training && factor == 1.0f) a.mean = a.variance = nullptr;
  const Chunks chunks = ChunksOf(dims);
  const ScratchLayout s = Carve(dims, chunks, scratch);
  if (is_training) LaunchPartials(stream, dims, chunks, ForwardTerms{a.x}, s.partials);
  const auto per_channel = LaunchConfigFor(dims.channels);
  ForwardChannelsKernel<<<per_channel.blocks, per_channel.threads, 0, stream>>>(
      dims, chunks.count, epsilon, factor, is_training, a, s.partials, s.factors);
  const int64_t total = dims.outer * dims.channels * dims.inner;
  const auto per_element = LaunchConfigFor(total);
  NormalizeKernel<<<per_element.blocks, per_element.threads, 0, stream>>>(
      dims, total, a.x, a.offset, s.factors, a.side_input, a.relu, a.y);
  return cudaGetLastError();
}

cudaError_t LaunchBatchNormBackward(cudaStream_t stream, const BatchNormDims& dims, float epsilon,
                                    bool is_training, const BatchNormBackward& args,
                                    void* scratch) {
  if (dims.channels == 0) return cudaSuccess;
  const Chunks chunks = ChunksOf(dims);
  const ScratchLayout s = Carve(dims, chunks, scratch);
  LaunchPartials(stream, dims, chunks, BackwardTerms{args.y_backprop, args.x, args.mean},
                 s.partials);
  const auto per_channel = LaunchConfigFor(dims.channels);
  BackwardChannelsKernel<<<per_channel.blocks, per_channel.threads, 0, stream>>>(
      dims, chunks.count, epsilon, is_training, args, s.partials, s.factors);
  const int64_t total = dims.outer * dims.channels * dims.inner;
  const auto per_element = LaunchConfigFor(total);
  InputGradientKernel<<<per_element.blocks, per_element.threads, 0, stream>>>(dims, total, args,
                                                                              s.factors);
  return cudaGetLastError();
}

}  // namespace minitf::gpu
