// Whether float matrix multiplications and convolutions on a GPU may use
// TensorFloat-32 (tensor cores rounding inputs to 10 mantissa bits, with FP32
// accumulation): TensorFlow's `tf.config.experimental.
// enable_tensor_float_32_execution`, process-wide, on by default.
//
//   EnableTensorFloat32Execution(false);  // FP32 FMA math everywhere
//   if (TensorFloat32ExecutionEnabled()) ... CUDNN_DEFAULT_MATH ...
//
// NVIDIA_TF32_OVERRIDE=0 in the environment (read at the first query, as
// NVIDIA's libraries read it when they load) keeps it off whatever is
// enabled. Only the CUDA
// platform reads it: cuBLAS's sgemm and cuDNN's convolutions. The CPU and
// SimGPU always compute in FP32. Thread-safe.
#ifndef MINITF_PLATFORM_TENSOR_FLOAT_32_H_
#define MINITF_PLATFORM_TENSOR_FLOAT_32_H_

namespace minitf {

void EnableTensorFloat32Execution(bool enabled);

// True when enabled and NVIDIA_TF32_OVERRIDE is not "0".
bool TensorFloat32ExecutionEnabled();

}  // namespace minitf

#endif  // MINITF_PLATFORM_TENSOR_FLOAT_32_H_
