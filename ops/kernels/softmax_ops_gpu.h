// Launchers of the row-wise CUDA kernels (softmax_ops_gpu.cu) behind Softmax and
// SparseSoftmaxCrossEntropyWithLogits. Each row is shifted by its maximum
// before exponentiating, as on the CPU. Plain types only; each enqueues on
// `stream` and returns the launch's error.
//
//   LaunchSoftmax(stream, logits, rows, classes, softmax);
#ifndef MINITF_OPS_KERNELS_SOFTMAX_OPS_GPU_H_
#define MINITF_OPS_KERNELS_SOFTMAX_OPS_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::gpu {

// softmax[r, :] = exp(logits[r, :] - max) / sum(exp(logits[r, :] - max)) for
// [rows, classes] matrices; softmax may be logits.
cudaError_t LaunchSoftmax(cudaStream_t stream, const float* logits, int64_t rows,
                          int64_t classes, float* softmax);

// For each row b with label y = labels[b] (REQUIRES: 0 <= y < classes):
//   loss[b] = log(sum_j exp(f[b, j] - max)) - (f[b, y] - max)
//   backprop[b, :] = softmax(f[b, :]) - onehot(y)
// features [batch, classes] must not overlap the outputs.
cudaError_t LaunchSparseSoftmaxXent(cudaStream_t stream, const float* features,
                                    const int32_t* labels, int64_t batch, int64_t classes,
                                    float* loss, float* backprop);
cudaError_t LaunchSparseSoftmaxXent(cudaStream_t stream, const float* features,
                                    const int64_t* labels, int64_t batch, int64_t classes,
                                    float* loss, float* backprop);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_SOFTMAX_OPS_GPU_H_
