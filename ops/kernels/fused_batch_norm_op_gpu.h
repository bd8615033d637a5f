// Launchers of the CUDA batch normalization kernels (fused_batch_norm_op_gpu.cu)
// for float tensors seen as [outer, channels, inner] (BatchNormLayout: NHWC
// is [N*H*W, C, 1], NCHW is [N, C, H*W]). Each channel's elements are cut
// into chunks folded by blocks across the whole GPU, in double precision as
// the CPU kernels fold them, so both devices agree to float rounding. Each
// enqueues on `stream`, using `scratch` (BatchNormScratchBytes of device
// memory, free once the work is done), and returns the launch's error.
#ifndef MINITF_OPS_KERNELS_FUSED_BATCH_NORM_OP_GPU_H_
#define MINITF_OPS_KERNELS_FUSED_BATCH_NORM_OP_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace minitf::gpu {

struct BatchNormDims {
  int64_t outer = 0;
  int64_t channels = 0;
  int64_t inner = 1;
};

// The device scratch either launch needs for `dims`.
int64_t BatchNormScratchBytes(const BatchNormDims& dims);

struct BatchNormForward {
  const float* x;
  const float* scale;
  const float* offset;
  const float* mean;      // read in inference, or when factor != 1
  const float* variance;  // likewise
  float* y;
  float* batch_mean;
  float* batch_variance;
  float* reserve_1;
  float* reserve_2;
  // _FusedBatchNormEx: added to y (x's shape; null: none), then the Relu.
  const float* side_input = nullptr;
  bool relu = false;
};

// Training: the batch's statistics normalize x; batch_mean/batch_variance
// are them (variance Bessel-corrected) when factor is 1, else running
// averages with mean/variance; reserve_1/2 the mean and biased variance.
// Inference: mean and variance normalize x and are passed on. y, in float,
// then has side_input added and the Relu applied (NaN kept), as the CPU
// kernel does, in the same pass.
// REQUIRES: dims.outer * dims.inner > 0.
cudaError_t LaunchBatchNormForward(cudaStream_t stream, const BatchNormDims& dims, float epsilon,
                                   float factor, bool is_training, const BatchNormForward& args,
                                   void* scratch);

struct BatchNormBackward {
  const float* y_backprop;
  const float* x;
  const float* scale;
  const float* mean;      // reserve_space_1
  const float* variance;  // reserve_space_2
  float* x_backprop;
  float* scale_backprop;
  float* offset_backprop;
};

// FusedBatchNormGrad's formulas (fused_batch_norm_op.cc).
// REQUIRES: dims.outer * dims.inner > 0.
cudaError_t LaunchBatchNormBackward(cudaStream_t stream, const BatchNormDims& dims, float epsilon,
                                    bool is_training, const BatchNormBackward& args, void* scratch);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_FUSED_BATCH_NORM_OP_GPU_H_
