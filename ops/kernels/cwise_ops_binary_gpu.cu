// CUDA kernels of Add, Sub, Mul, Div, Maximum, Minimum, SquaredDifference
// and Pow, and of the comparisons, with broadcasting
// (see cwise_ops_gpu.h). The comparisons follow std::max / std::min, as the
// CPU kernels' Eigen cwiseMax / cwiseMin do.
#include "ops/kernels/cwise_ops_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

struct AddFn {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct SubFn {
  __device__ float operator()(float a, float b) const { return a - b; }
};
struct MulFn {
  __device__ float operator()(float a, float b) const { return a * b; }
};
struct DivFn {
  __device__ float operator()(float a, float b) const { return a / b; }
};
struct MaximumFn {
  __device__ float operator()(float a, float b) const { return a < b ? b : a; }
};
struct MinimumFn {
  __device__ float operator()(float a, float b) const { return b < a ? b : a; }
};
struct SquaredDifferenceFn {
  __device__ float operator()(float a, float b) const { return (a - b) * (a - b); }
};
struct PowFn {
  __device__ float operator()(float a, float b) const { return powf(a, b); }
};
struct LessFn {
  __device__ bool operator()(float a, float b) const { return a < b; }
};
struct LessEqualFn {
  __device__ bool operator()(float a, float b) const { return a <= b; }
};
struct GreaterFn {
  __device__ bool operator()(float a, float b) const { return a > b; }
};
struct GreaterEqualFn {
  __device__ bool operator()(float a, float b) const { return a >= b; }
};
struct EqualFn {
  __device__ bool operator()(float a, float b) const { return a == b; }
};
struct NotEqualFn {
  __device__ bool operator()(float a, float b) const { return a != b; }
};

// Rank-1 layouts: each operand steps by 0 (a scalar) or 1.
template <typename Fn, typename Out>
__global__ void FlatBinaryKernel(int64_t n, const float* x, int64_t x_step, const float* y,
                                 int64_t y_step, Out* z) {
  const Fn fn;
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) z[i] = fn(x[i * x_step], y[i * y_step]);
}

template <typename Fn, typename Out>
__global__ void BroadcastBinaryKernel(int64_t n, BroadcastLayout layout, const float* x,
                                      const float* y, Out* z) {
  const Fn fn;
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) {
    int64_t rest = i, x_offset = 0, y_offset = 0;
    for (int d = layout.rank - 1; d >= 0; --d) {
      const int64_t index = rest % layout.result_dims[d];
      rest /= layout.result_dims[d];
      x_offset += index * layout.x_strides[d];
      y_offset += index * layout.y_strides[d];
    }
    z[i] = fn(x[x_offset], y[y_offset]);
  }
}

template <typename Fn, typename Out>
cudaError_t Launch(cudaStream_t stream, const BroadcastLayout& layout, const float* x,
                   const float* y, Out* z) {
  int64_t n = 1;
  for (int d = 0; d < layout.rank; ++d) n *= layout.result_dims[d];
  if (n == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(n);
  if (layout.rank == 1) {
    FlatBinaryKernel<Fn, Out><<<config.blocks, config.threads, 0, stream>>>(
        n, x, layout.x_strides[0], y, layout.y_strides[0], z);
  } else {
    BroadcastBinaryKernel<Fn, Out><<<config.blocks, config.threads, 0, stream>>>(n, layout, x, y, z);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchBinaryOp(cudaStream_t stream, BinaryOpKind kind, const BroadcastLayout& layout,
                           const float* x, const float* y, float* z) {
  switch (kind) {
    case BinaryOpKind::kAdd: return Launch<AddFn>(stream, layout, x, y, z);
    case BinaryOpKind::kSub: return Launch<SubFn>(stream, layout, x, y, z);
    case BinaryOpKind::kMul: return Launch<MulFn>(stream, layout, x, y, z);
    case BinaryOpKind::kDiv: return Launch<DivFn>(stream, layout, x, y, z);
    case BinaryOpKind::kMaximum: return Launch<MaximumFn>(stream, layout, x, y, z);
    case BinaryOpKind::kMinimum: return Launch<MinimumFn>(stream, layout, x, y, z);
    case BinaryOpKind::kSquaredDifference:
      return Launch<SquaredDifferenceFn>(stream, layout, x, y, z);
    case BinaryOpKind::kPow: return Launch<PowFn>(stream, layout, x, y, z);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchPredicateOp(cudaStream_t stream, PredicateKind kind,
                              const BroadcastLayout& layout, const float* x, const float* y,
                              bool* z) {
  switch (kind) {
    case PredicateKind::kLess: return Launch<LessFn>(stream, layout, x, y, z);
    case PredicateKind::kLessEqual: return Launch<LessEqualFn>(stream, layout, x, y, z);
    case PredicateKind::kGreater: return Launch<GreaterFn>(stream, layout, x, y, z);
    case PredicateKind::kGreaterEqual: return Launch<GreaterEqualFn>(stream, layout, x, y, z);
    case PredicateKind::kEqual: return Launch<EqualFn>(stream, layout, x, y, z);
    case PredicateKind::kNotEqual: return Launch<NotEqualFn>(stream, layout, x, y, z);
  }
  return cudaErrorInvalidValue;
}

}  // namespace minitf::gpu
