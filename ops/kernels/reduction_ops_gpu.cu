// The CUDA reduction kernels of Sum, Mean and Max (see reduction_ops_gpu.h).
// A fold over contiguous elements (inner == 1) gives each row a block that
// reduces it in shared memory; otherwise each thread folds one output down
// its column, neighbouring threads reading neighbouring elements. A long
// fold into few outputs (BERT's global norm sums whole weight matrices into
// one number) would leave most of the GPU idle, so it is cut into chunks
// folded side by side into partials, then the partials are folded: two
// passes, in a fixed order, so a sum is the same at every run. Sums
// accumulate in double (`Acc`), so 10^8 floats sum as TensorFlow's blocked
// sums do, not with an error that grows with their number.
#include <algorithm>
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

// Blocks (row folds) or threads (column folds) worth filling the GPU with:
// a few waves of an H100's 132 SMs.
constexpr int64_t kWantedRowBlocks = 1024;
constexpr int64_t kWantedColumnThreads = int64_t{1} << 18;
// Below these lengths a fold is not cut: one block's threads, or one
// thread, fold it quickly enough.
constexpr int64_t kMinRowChunk = int64_t{kRowBlockThreads} * 16;
constexpr int64_t kMinColumnChunk = 32;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// How many chunks each fold of [outer, reduced, inner] is cut into (1: none).
int64_t Chunks(int64_t outer, int64_t reduced, int64_t inner) {
  if (inner == 1) {
    return std::max<int64_t>(
        1, std::min(CeilDiv(reduced, kMinRowChunk), kWantedRowBlocks / std::max<int64_t>(outer, 1)));
  }
  const int64_t outputs = outer * inner;
  return std::max<int64_t>(
      1, std::min(CeilDiv(reduced, kMinColumnChunk), kWantedColumnThreads / std::max<int64_t>(outputs, 1)));
}

// out[b] for each block b of rows * chunks: chunk b % chunks of row b / chunks,
// folded (and divided by `divisor` when it is the last pass).
template <typename Combine, typename Acc, typename In, typename Out>
__global__ void ReduceRowsKernel(const In* in, int64_t rows, int64_t reduced, int64_t chunks,
                                 Acc identity, Acc divisor, Out* out) {
  __shared__ Acc scratch[kRowBlockThreads];
  const Combine combine;
  const int64_t chunk = (reduced + chunks - 1) / chunks;
  for (int64_t b = blockIdx.x; b < rows * chunks; b += gridDim.x) {
    const In* x = in + (b / chunks) * reduced;
    const int64_t begin = (b % chunks) * chunk;
    const int64_t end = begin + chunk < reduced ? begin + chunk : reduced;
    Acc acc = identity;
    for (int64_t r = begin + threadIdx.x; r < end; r += blockDim.x) {
      acc = combine(acc, static_cast<Acc>(x[r]));
    }
    acc = BlockReduce(acc, combine, scratch);
    if (threadIdx.x == 0) out[b] = static_cast<Out>(acc / divisor);
  }
}

// out[c * outer * inner + i] for each chunk c of the fold of output i.
template <typename Combine, typename Acc, typename In, typename Out>
__global__ void ReduceColumnsKernel(const In* in, int64_t outer, int64_t reduced, int64_t inner,
                                    int64_t chunks, Acc identity, Acc divisor, Out* out) {
  const Combine combine;
  const int64_t outputs = outer * inner;
  const int64_t chunk = (reduced + chunks - 1) / chunks;
  for (int64_t j = FirstIndex(); j < outputs * chunks; j += IndexStride()) {
    const int64_t i = j % outputs;
    const int64_t begin = (j / outputs) * chunk;
    const int64_t end = begin + chunk < reduced ? begin + chunk : reduced;
    const In* x = in + (i / inner) * reduced * inner + i % inner;
    Acc acc = identity;
    for (int64_t r = begin; r < end; ++r) acc = combine(acc, static_cast<Acc>(x[r * inner]));
    out[j] = static_cast<Out>(acc / divisor);
  }
}

template <typename Combine, typename Acc, typename In, typename Out>
void LaunchRows(cudaStream_t stream, const In* in, int64_t rows, int64_t reduced, int64_t chunks,
                Acc identity, Acc divisor, Out* out) {
  const int64_t blocks = std::min<int64_t>(rows * chunks, 65535);
  ReduceRowsKernel<Combine, Acc, In, Out><<<static_cast<unsigned>(blocks), kRowBlockThreads, 0,
                                            stream>>>(in, rows, reduced, chunks, identity,
                                                      divisor, out);
}

template <typename Combine, typename Acc, typename In, typename Out>
void LaunchColumns(cudaStream_t stream, const In* in, int64_t outer, int64_t reduced,
                   int64_t inner, int64_t chunks, Acc identity, Acc divisor, Out* out) {
  const LaunchConfig config = LaunchConfigFor(outer * inner * chunks);
  ReduceColumnsKernel<Combine, Acc, In, Out><<<config.blocks, config.threads, 0, stream>>>(
      in, outer, reduced, inner, chunks, identity, divisor, out);
}

template <typename Combine, typename Acc>
cudaError_t Launch(cudaStream_t stream, const float* in, int64_t outer, int64_t reduced,
                   int64_t inner, Acc identity, Acc divisor, float* out, void* scratch) {
  if (outer * inner == 0) return cudaSuccess;
  const int64_t chunks = Chunks(outer, reduced, inner);
  if (chunks == 1) {
    if (inner == 1) {
      LaunchRows<Combine, Acc>(stream, in, outer, reduced, 1, identity, divisor, out);
    } else {
      LaunchColumns<Combine, Acc>(stream, in, outer, reduced, inner, 1, identity, divisor, out);
    }
    return cudaGetLastError();
  }
  if (scratch == nullptr) return cudaErrorInvalidValue;
  Acc* partials = static_cast<Acc*>(scratch);
  if (inner == 1) {
    // [outer, reduced] -> partials [outer, chunks] -> out [outer].
    LaunchRows<Combine, Acc>(stream, in, outer, reduced, chunks, identity, Acc{1}, partials);
    LaunchRows<Combine, Acc>(stream, static_cast<const Acc*>(partials), outer, chunks, 1,
                             identity, divisor, out);
  } else {
    // [outer, reduced, inner] -> partials [chunks, outer * inner] -> out.
    LaunchColumns<Combine, Acc>(stream, in, outer, reduced, inner, chunks, identity, Acc{1},
                                partials);
    LaunchColumns<Combine, Acc>(stream, static_cast<const Acc*>(partials), 1, chunks,
                                outer * inner, 1, identity, divisor, out);
  }
  return cudaGetLastError();
}

}  // namespace

int64_t ReduceMiddleScratchBytes(int64_t outer, int64_t reduced, int64_t inner) {
  if (outer * inner == 0) return 0;
  const int64_t chunks = Chunks(outer, reduced, inner);
  // Partials are doubles for sums, floats for max: room for the wider.
  return chunks == 1 ? 0 : outer * inner * chunks * static_cast<int64_t>(sizeof(double));
}

cudaError_t LaunchReduceMiddle(cudaStream_t stream, ReductionKind kind, const float* in,
                               int64_t outer, int64_t reduced, int64_t inner, float divisor,
                               float* out, void* scratch) {
  switch (kind) {
    case ReductionKind::kSum:
      return Launch<SumOf, double>(stream, in, outer, reduced, inner, 0.0, divisor, out,
                                   scratch);
    case ReductionKind::kMax:
      return Launch<MaxOf, float>(stream, in, outer, reduced, inner,
                                  -std::numeric_limits<float>::infinity(), divisor, out, scratch);
  }
  return cudaErrorInvalidValue;
}

}  // namespace minitf::gpu
