// CUDA kernels of Neg, Square, Sqrt, Rsqrt, Exp, Log, Relu, Sigmoid, Tanh,
// Erf and Erfc, of ReluGrad and of the unary ops' gradient helpers (see
// cwise_ops_gpu.h). Relu keeps NaN as std::max(x, 0) does.
#include "ops/kernels/cwise_ops_gpu.h"
#include "stream/cuda/gpu_launch_config.h"

namespace minitf::gpu {
namespace {

using se::cuda::FirstIndex;
using se::cuda::IndexStride;
using se::cuda::LaunchConfig;
using se::cuda::LaunchConfigFor;

struct NegFn {
  __device__ float operator()(float x) const { return -x; }
};
struct SquareFn {
  __device__ float operator()(float x) const { return x * x; }
};
struct SqrtFn {
  __device__ float operator()(float x) const { return sqrtf(x); }
};
struct RsqrtFn {
  __device__ float operator()(float x) const { return 1.0f / sqrtf(x); }
};
struct ExpFn {
  __device__ float operator()(float x) const { return expf(x); }
};
struct LogFn {
  __device__ float operator()(float x) const { return logf(x); }
};
struct ReluFn {
  __device__ float operator()(float x) const { return x < 0.0f ? 0.0f : x; }
};
struct SigmoidFn {
  __device__ float operator()(float x) const { return 1.0f / (1.0f + expf(-x)); }
};
struct TanhFn {
  __device__ float operator()(float x) const { return tanhf(x); }
};
struct ErfFn {
  __device__ float operator()(float x) const { return erff(x); }
};
struct ErfcFn {
  __device__ float operator()(float x) const { return erfcf(x); }
};

template <typename Fn>
__global__ void UnaryKernel(int64_t n, const float* x, float* y) {
  const Fn fn;
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) y[i] = fn(x[i]);
}

__global__ void ReluGradKernel(int64_t n, const float* gradients, const float* features,
                               float* backprops) {
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) {
    backprops[i] = features[i] > 0.0f ? gradients[i] : 0.0f;
  }
}

struct RsqrtGradFn {
  __device__ float operator()(float y, float dy) const { return dy * y * y * y * -0.5f; }
};
struct SqrtGradFn {
  __device__ float operator()(float y, float dy) const { return dy * 0.5f / y; }
};
struct ReciprocalGradFn {
  __device__ float operator()(float y, float dy) const { return -dy * y * y; }
};
struct SigmoidGradFn {
  __device__ float operator()(float y, float dy) const { return dy * y * (1.0f - y); }
};
struct TanhGradFn {
  __device__ float operator()(float y, float dy) const { return dy * (1.0f - y * y); }
};

template <typename Fn>
__global__ void UnaryGradKernel(int64_t n, const float* y, const float* dy, float* z) {
  const Fn fn;
  for (int64_t i = FirstIndex(); i < n; i += IndexStride()) z[i] = fn(y[i], dy[i]);
}

template <typename Fn>
cudaError_t LaunchGrad(cudaStream_t stream, int64_t n, const float* y, const float* dy,
                       float* z) {
  if (n == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(n);
  UnaryGradKernel<Fn><<<config.blocks, config.threads, 0, stream>>>(n, y, dy, z);
  return cudaGetLastError();
}

template <typename Fn>
cudaError_t Launch(cudaStream_t stream, int64_t n, const float* x, float* y) {
  if (n == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(n);
  UnaryKernel<Fn><<<config.blocks, config.threads, 0, stream>>>(n, x, y);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchUnaryOp(cudaStream_t stream, UnaryOpKind kind, int64_t n, const float* x,
                          float* y) {
  switch (kind) {
    case UnaryOpKind::kNeg: return Launch<NegFn>(stream, n, x, y);
    case UnaryOpKind::kSquare: return Launch<SquareFn>(stream, n, x, y);
    case UnaryOpKind::kSqrt: return Launch<SqrtFn>(stream, n, x, y);
    case UnaryOpKind::kRsqrt: return Launch<RsqrtFn>(stream, n, x, y);
    case UnaryOpKind::kExp: return Launch<ExpFn>(stream, n, x, y);
    case UnaryOpKind::kLog: return Launch<LogFn>(stream, n, x, y);
    case UnaryOpKind::kRelu: return Launch<ReluFn>(stream, n, x, y);
    case UnaryOpKind::kSigmoid: return Launch<SigmoidFn>(stream, n, x, y);
    case UnaryOpKind::kTanh: return Launch<TanhFn>(stream, n, x, y);
    case UnaryOpKind::kErf: return Launch<ErfFn>(stream, n, x, y);
    case UnaryOpKind::kErfc: return Launch<ErfcFn>(stream, n, x, y);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchReluGrad(cudaStream_t stream, int64_t n, const float* gradients,
                           const float* features, float* backprops) {
  if (n == 0) return cudaSuccess;
  const LaunchConfig config = LaunchConfigFor(n);
  ReluGradKernel<<<config.blocks, config.threads, 0, stream>>>(n, gradients, features, backprops);
  return cudaGetLastError();
}

cudaError_t LaunchUnaryGrad(cudaStream_t stream, UnaryGradKind kind, int64_t n, const float* y,
                            const float* dy, float* z) {
  switch (kind) {
    case UnaryGradKind::kRsqrt: return LaunchGrad<RsqrtGradFn>(stream, n, y, dy, z);
    case UnaryGradKind::kSqrt: return LaunchGrad<SqrtGradFn>(stream, n, y, dy, z);
    case UnaryGradKind::kReciprocal: return LaunchGrad<ReciprocalGradFn>(stream, n, y, dy, z);
    case UnaryGradKind::kSigmoid: return LaunchGrad<SigmoidGradFn>(stream, n, y, dy, z);
    case UnaryGradKind::kTanh: return LaunchGrad<TanhGradFn>(stream, n, y, dy, z);
  }
  return cudaErrorInvalidValue;
}

}  // namespace minitf::gpu
