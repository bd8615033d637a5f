// The CPU arithmetic of FusedBatchNorm(V3), _FusedBatchNormEx and their
// gradients (fused_batch_norm_op.cc holds the kernels, which check the
// inputs and call these), for float x of any layout seen as [outer,
// channels, inner]. Each channel's sums are taken in double. NHWC (inner ==
// 1) walks rows of contiguous channels over blocks of rows, folding the
// blocks' partial sums in a fixed order; other layouts give each block of
// channels to one thread. Either way the answer does not depend on the
// number of threads.
//
//   BatchNormLayout l{.outer = n * h * w, .channels = c};
//   BatchNormTraining(device, l, epsilon, /*factor=*/1.0f, args);
#ifndef MINITF_OPS_KERNELS_FUSED_BATCH_NORM_FUNCTORS_H_
#define MINITF_OPS_KERNELS_FUSED_BATCH_NORM_FUNCTORS_H_

#include <cstdint>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "unsupported/Eigen/CXX11/Tensor"

namespace minitf::functor {

// A 4-D x seen as [outer, channels, inner]: NHWC is [N*H*W, C, 1], NCHW is
// [N, C, H*W]. The per-channel statistics reduce over outer and inner;
// element (o, c, i) of x is x[(o * channels + c) * inner + i].
struct BatchNormLayout {
  int64_t outer = 0;
  int64_t channels = 0;
  int64_t inner = 1;

  // The number of elements each channel's statistics are taken over.
  int64_t per_channel() const { return outer * inner; }
};

// The forward pass's tensors: inputs (x, scale, offset, and the given mean
// and variance, read in inference and as the running statistics'
// previous values in training) and outputs.
struct ForwardArgs {
  const float* x;
  const float* scale;
  const float* offset;
  const float* mean;      // The given (running or population) mean.
  const float* variance;  // Likewise.
  float* y;
  float* batch_mean;
  float* batch_variance;
  float* reserve_1;
  float* reserve_2;
  // _FusedBatchNormEx's side input (an Add before the activation), x's
  // shape: y = y + side_input. Null: none.
  const float* side_input = nullptr;
  // _FusedBatchNormEx with activation_mode Relu: y = max(y, 0), after the
  // side input.
  bool relu = false;
};

struct GradArgs {
  const float* y_backprop;
  const float* x;
  const float* scale;
  const float* mean;      // reserve_space_1
  const float* variance;  // reserve_space_2
  float* x_backprop;
  float* scale_backprop;
  float* offset_backprop;
};

// Training: the batch's statistics normalize x; batch_mean and
// batch_variance become the running averages with `factor` (TensorFlow's
// exponential_avg_factor; 1 replaces them), the variance unbiased; the
// reserves hold the batch mean and biased variance.
void BatchNormTraining(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l,
                       float epsilon, float factor, const ForwardArgs& a);

// Inference: the given mean and variance normalize x and are copied to
// batch_mean, batch_variance and the reserves.
void BatchNormInference(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l,
                        float epsilon, const ForwardArgs& a);

// The gradients of x, scale and offset, for the statistics training used
// (the batch's, in reserve_1/2) or inference's (the given ones).
void BatchNormGrad(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l, float epsilon,
                   bool is_training, const GradArgs& a);

}  // namespace minitf::functor

#endif  // MINITF_OPS_KERNELS_FUSED_BATCH_NORM_FUNCTORS_H_
