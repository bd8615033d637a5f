// NHWC max pooling and its gradient as CUDA kernels, with TensorFlow's
// semantics (those of ops/kernels/pooling_functors.h): padding never wins a
// window, and the gradient of each output goes to the first maximal input of
// its window in row-major order, adding up where windows overlap. CudaDnn
// runs these rather than cuDNN's pooling, whose tie-breaking and asymmetric
// SAME padding differ. Each enqueues its kernels on `stream` and returns the
// launch's error.
#ifndef MINITF_STREAM_CUDA_POOLING_KERNELS_H_
#define MINITF_STREAM_CUDA_POOLING_KERNELS_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::se::cuda {

// One pooling's sizes (see dnn::ConvolutionDescriptor), by value for kernels.
struct PoolShape {
  int64_t batch, in_rows, in_cols, depth;
  int64_t window_rows, window_cols, stride_rows, stride_cols;
  int64_t pad_top, pad_left;
  int64_t out_rows, out_cols;
};

cudaError_t LaunchMaxPool(cudaStream_t stream, const PoolShape& shape, const float* input,
                          float* output);
// Zeroes in_backprop, then adds each output's gradient at its window's maximum.
cudaError_t LaunchMaxPoolGrad(cudaStream_t stream, const PoolShape& shape, const float* input,
                              const float* out_backprop, float* in_backprop);

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_POOLING_KERNELS_H_
