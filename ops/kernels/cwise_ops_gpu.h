// Launchers of the element-wise CUDA kernels (cwise_ops_binary_gpu.cu,
// cwise_ops_unary_gpu.cu) for float tensors (bool results for the
// comparisons). Plain types only, so the .cu files
// stay free of minitf's heavier headers. Each enqueues on `stream` and
// returns the launch's error.
//
//   BroadcastLayout layout = ...;   // from BCast, see cwise_ops_binary.cc
//   cudaError_t e = LaunchBinaryOp(stream, BinaryOpKind::kAdd, layout, x, y, z);
#ifndef MINITF_OPS_KERNELS_CWISE_OPS_GPU_H_
#define MINITF_OPS_KERNELS_CWISE_OPS_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::gpu {

// The most result dimensions a broadcast may need after BCast's merging.
inline constexpr int kMaxBroadcastRank = 5;

enum class BinaryOpKind {
  kAdd, kSub, kMul, kDiv, kMaximum, kMinimum, kSquaredDifference, kPow
};

// z[index] = op(x[offset_x(index)], y[offset_y(index)]) over a row-major
// result of `rank` dimensions, where an operand's offset is the dot product
// of the index with its strides (0 along a dimension it is stretched over).
struct BroadcastLayout {
  int rank = 1;
  int64_t result_dims[kMaxBroadcastRank] = {};
  int64_t x_strides[kMaxBroadcastRank] = {};
  int64_t y_strides[kMaxBroadcastRank] = {};
};

cudaError_t LaunchBinaryOp(cudaStream_t stream, BinaryOpKind kind, const BroadcastLayout& layout,
                           const float* x, const float* y, float* z);

// The comparisons (cwise_ops_compare.cc), IEEE 754's: a NaN operand makes
// each false but kNotEqual, which it makes true.
enum class PredicateKind { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };

// z[index] = op(x[...], y[...]) as LaunchBinaryOp, with a bool result.
cudaError_t LaunchPredicateOp(cudaStream_t stream, PredicateKind kind,
                              const BroadcastLayout& layout, const float* x, const float* y,
                              bool* z);

// The layout of two operands of n elements each, combined element by
// element.
inline BroadcastLayout FlatLayout(int64_t n) {
  BroadcastLayout flat;
  flat.rank = 1;
  flat.result_dims[0] = n;
  flat.x_strides[0] = 1;
  flat.y_strides[0] = 1;
  return flat;
}

enum class UnaryOpKind {
  kNeg, kSquare, kSqrt, kRsqrt, kExp, kLog, kRelu, kSigmoid, kTanh, kErf, kErfc
};

// y[i] = op(x[i]) for i in [0, n); y may be x.
cudaError_t LaunchUnaryOp(cudaStream_t stream, UnaryOpKind kind, int64_t n, const float* x,
                          float* y);

// backprops[i] = features[i] > 0 ? gradients[i] : 0; backprops may be either input.
cudaError_t LaunchReluGrad(cudaStream_t stream, int64_t n, const float* gradients,
                           const float* features, float* backprops);

// The gradient helpers of unary ops, given the op's output y and dL/dy:
// RsqrtGrad -dy y^3 / 2, SqrtGrad dy / (2 y), ReciprocalGrad -dy y^2,
// SigmoidGrad dy y (1 - y), TanhGrad dy (1 - y^2).
enum class UnaryGradKind { kRsqrt, kSqrt, kReciprocal, kSigmoid, kTanh };

// z[i] = grad(y[i], dy[i]) for i in [0, n); z may be y or dy.
cudaError_t LaunchUnaryGrad(cudaStream_t stream, UnaryGradKind kind, int64_t n, const float* y,
                            const float* dy, float* z);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_CWISE_OPS_GPU_H_
