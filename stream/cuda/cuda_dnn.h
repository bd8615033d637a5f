// CudaDnn: the DNN plugin of a CudaExecutor. Convolutions (forward and both
// gradients) run on cuDNN; max pooling and its gradient on minitf's own
// kernels (pooling_kernels.h), which follow TensorFlow's tie-breaking.
//
// Layout bridging: tensors are NHWC floats as cuDNN takes them, but cuDNN
// wants NHWC-convolution filters as OHWI (KRSC) where TensorFlow keeps HWIO,
// so filters and filter gradients are transposed through scratch memory; and
// cuDNN pads symmetrically where TensorFlow's SAME padding may put one more
// row or column after the input, so such inputs are zero-padded at the
// bottom and right first (and input gradients cropped back). Scratch and
// cuDNN workspaces come from CudaExecutor::AllocateScratch, ordered on the
// caller's stream; algorithms are cuDNN's heuristic choice among those whose
// workspace fits kMaxWorkspaceBytes, in FP32 FMA math (no TF32).
//
//   DnnSupport* dnn = stream->parent()->AsDnn();
//   MINITF_RETURN_IF_ERROR(dnn->DoConvolve(stream, conv, input, filter, &output));
//
// A failure puts the stream into its error state. Owned by its CudaExecutor.
// Thread-safe: one cuDNN handle per executor, used under a lock.
#ifndef MINITF_STREAM_CUDA_CUDA_DNN_H_
#define MINITF_STREAM_CUDA_CUDA_DNN_H_

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "platform/mutex.h"
#include "stream/dnn.h"

namespace minitf::se::cuda {

class CudaExecutor;
class CudaStream;

class CudaDnn : public DnnSupport {
 public:
  // The largest cuDNN workspace an algorithm may ask for.
  static constexpr uint64_t kMaxWorkspaceBytes = uint64_t{256} << 20;

  // `parent` is not owned and outlives the plugin.
  explicit CudaDnn(CudaExecutor* parent);
  ~CudaDnn() override;
  CudaDnn(const CudaDnn&) = delete;
  CudaDnn& operator=(const CudaDnn&) = delete;

  absl::Status DoConvolve(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                          const DeviceMemory<float>& input, const DeviceMemory<float>& filter,
                          DeviceMemory<float>* output) override;
  absl::Status DoConvolveBackwardData(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                                      const DeviceMemory<float>& filter,
                                      const DeviceMemory<float>& out_backprop,
                                      DeviceMemory<float>* in_backprop) override;
  absl::Status DoConvolveBackwardFilter(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                                        const DeviceMemory<float>& input,
                                        const DeviceMemory<float>& out_backprop,
                                        DeviceMemory<float>* filter_backprop) override;
  absl::Status DoMaxPool(Stream* stream, const dnn::ConvolutionDescriptor& pool,
                         const DeviceMemory<float>& input, DeviceMemory<float>* output) override;
  absl::Status DoMaxPoolBackward(Stream* stream, const dnn::ConvolutionDescriptor& pool,
                                 const DeviceMemory<float>& input,
                                 const DeviceMemory<float>& output,
                                 const DeviceMemory<float>& out_backprop,
                                 DeviceMemory<float>* in_backprop) override;

 private:
  // The CudaStream behind `stream`; InvalidArgument for another device's.
  absl::StatusOr<CudaStream*> CheckStream(Stream* stream) const;
  // The handle (created on first use), pointed at `stream`.
  absl::StatusOr<cudnnHandle_t> HandleFor(cudaStream_t stream) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Status Convolve(CudaStream* stream, const dnn::ConvolutionDescriptor& conv,
                        const float* input, const float* filter, float* output)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ConvolveBackwardData(CudaStream* stream, const dnn::ConvolutionDescriptor& conv,
                                    const float* filter, const float* out_backprop,
                                    float* in_backprop) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ConvolveBackwardFilter(CudaStream* stream, const dnn::ConvolutionDescriptor& conv,
                                      const float* input, const float* out_backprop,
                                      float* filter_backprop) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  CudaExecutor* const parent_;  // Not owned.
  Mutex mu_;
  cudnnHandle_t handle_ ABSL_GUARDED_BY(mu_) = nullptr;
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUDA_DNN_H_
