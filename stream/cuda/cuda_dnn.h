// CudaDnn: the DNN plugin of a CudaExecutor. Convolutions (forward and both
// gradients) run on cuDNN; max pooling and its gradient on minitf's own
// kernels (pooling_kernels.h), which follow TensorFlow's tie-breaking.
//
// Layout bridging: tensors are NHWC floats as cuDNN takes them, but cuDNN
// wants NHWC-convolution filters as OHWI (KRSC) where TensorFlow keeps HWIO,
// so filters and filter gradients are transposed through scratch memory (as
// TensorFlow transforms its filters on every call). cuDNN computes in NHWC;
// MINITF_CUDNN_COMPUTE_FORMAT=nchw makes it compute in NCHW, and =auto as
// TensorFlow's GPU kernels do (ComputeInNchw), the input, output and their
// gradients then transposed to and from NCHW around its call and the filter
// to OIHW. cuDNN pads
// symmetrically where TensorFlow's SAME padding may put one more row or
// column after the input, so such inputs are zero-padded at the bottom and
// right first (and input gradients cropped back). Scratch and cuDNN
// workspaces come from the caller's ScratchAllocator (the op's device
// allocator), or without one from CudaExecutor::AllocateScratch, ordered on
// the caller's stream.
//
// Each shape's descriptors and algorithm are chosen once and kept in a
// ConvolutionPlanCache: measured on the first call's buffers
// (cudnnFind*AlgorithmEx) unless TF_CUDNN_USE_AUTOTUNE is 0 or false, when
// cuDNN's heuristic ranking decides, as in TensorFlow. Convolutions use
// TF32 tensor cores while TensorFloat32ExecutionEnabled()
// (platform/tensor_float_32.h), FP32 FMA math otherwise.
//
//   DnnSupport* dnn = stream->parent()->AsDnn();
//   MINITF_RETURN_IF_ERROR(dnn->DoConvolve(stream, conv, input, filter, &output));
//
// A failure puts the stream into its error state. Owned by its CudaExecutor.
// Thread-safe, with no lock held across a cuDNN call: each call leases a
// cuDNN handle of its own from a pool (one per concurrent caller) and points
// it at its stream.
#ifndef MINITF_STREAM_CUDA_CUDA_DNN_H_
#define MINITF_STREAM_CUDA_CUDA_DNN_H_

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "stream/cuda/cudnn_algorithm.h"
#include "stream/cuda/cudnn_plan_cache.h"
#include "stream/dnn.h"
#include "stream/handle_pool.h"

namespace minitf::se::cuda {

class CudaExecutor;
class CudaStream;
class ScratchArena;

class CudaDnn : public DnnSupport {
 public:
  // The largest cuDNN workspace an algorithm may ask for.
  static constexpr uint64_t kMaxWorkspaceBytes = uint64_t{256} << 20;

  // `parent` is not owned and outlives the plugin. Autotuning follows
  // TF_CUDNN_USE_AUTOTUNE (on unless "0" or "false").
  explicit CudaDnn(CudaExecutor* parent);
  ~CudaDnn() override;
  CudaDnn(const CudaDnn&) = delete;
  CudaDnn& operator=(const CudaDnn&) = delete;

  absl::Status DoConvolve(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                          const DeviceMemory<float>& input, const DeviceMemory<float>& filter,
                          DeviceMemory<float>* output,
                          ScratchAllocator* scratch_allocator) override;
  absl::Status DoConvolveBackwardData(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                                      const DeviceMemory<float>& filter,
                                      const DeviceMemory<float>& out_backprop,
                                      DeviceMemory<float>* in_backprop,
                                      ScratchAllocator* scratch_allocator) override;
  absl::Status DoConvolveBackwardFilter(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                                        const DeviceMemory<float>& input,
                                        const DeviceMemory<float>& out_backprop,
                                        DeviceMemory<float>* filter_backprop,
                                        ScratchAllocator* scratch_allocator) override;
  // cudnnConvolutionBiasActivationForward with a Relu that keeps NaN, the
  // forward plan's algorithm.
  absl::Status DoFusedConvolveBiasRelu(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                                       const DeviceMemory<float>& input,
                                       const DeviceMemory<float>& filter,
                                       const DeviceMemory<float>& bias,
                                       DeviceMemory<float>* output,
                                       ScratchAllocator* scratch_allocator) override;
  absl::Status DoMaxPool(Stream* stream, const dnn::ConvolutionDescriptor& pool,
                         const DeviceMemory<float>& input, DeviceMemory<float>* output) override;
  absl::Status DoMaxPoolBackward(Stream* stream, const dnn::ConvolutionDescriptor& pool,
                                 const DeviceMemory<float>& input,
                                 const DeviceMemory<float>& output,
                                 const DeviceMemory<float>& out_backprop,
                                 DeviceMemory<float>* in_backprop) override;

  // Whether algorithms are measured (cudnnFind*) rather than taken from the
  // heuristics.
  bool autotune() const { return autotune_; }
  // The plans made so far: one per direction, shape and math mode.
  size_t plan_count() const { return plans_.size(); }

 private:
  // How cuDNN lays out a float convolution's tensors
  // (MINITF_CUDNN_COMPUTE_FORMAT).
  enum class ComputeFormat { kNhwc, kNchw, kAuto };
  // What one convolution call works with: the stream, a cuDNN handle leased
  // for the call and pointed at it, the call's scratch, the compute layout.
  struct Call {
    cudaStream_t stream;
    cudnnHandle_t handle;
    ScratchArena* scratch;
    bool nchw;
  };

  // MINITF_CUDNN_COMPUTE_FORMAT parsed: nhwc when unset, InvalidArgument
  // naming the variable and its value for anything but auto, nhwc, nchw.
  static absl::StatusOr<ComputeFormat> ComputeFormatFromEnv();

  // The CudaStream behind `stream`; InvalidArgument for another device's.
  absl::StatusOr<CudaStream*> CheckStream(Stream* stream) const;
  // Runs `body` with a Call on `stream`, or, when `conv` has no work (a
  // zero dimension), zero-fills the `result_elements` floats at `result`;
  // a failure puts the stream into its error state, except Unimplemented
  // (what cuDNN declined: no algorithm, no fusion), which leaves it usable.
  absl::Status RunConvolution(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                              float* result, int64_t result_elements,
                              ScratchAllocator* scratch_allocator,
                              absl::FunctionRef<absl::Status(const Call&)> body);
  // The plan of `c` in `direction` under the current math mode: the cached
  // one, or one made now (measured on `operands` when autotuning, with a
  // workspace of the plugin's own, given back on the call's stream at once).
  absl::StatusOr<const ConvolutionPlan*> PlanFor(ConvolutionDirection direction,
                                                 const dnn::ConvolutionDescriptor& c,
                                                 const Call& call, const MeasureOn& operands);
  // Whether cuDNN runs the float convolutions in NCHW, the tensors
  // transposed around its call: MINITF_CUDNN_COMPUTE_FORMAT nhwc (the
  // default) or nchw; auto decides as TensorFlow's GPU kernels do
  // (ComputeInNhwcEnabled: NCHW unless TF32 tensor cores do the work, TF32
  // on and an Ampere or later GPU). NHWC is the default because it measured
  // faster on an H200 with cuDNN 9.19 (docs/GPU.md). InvalidArgument for
  // another value.
  absl::StatusOr<bool> ComputeInNchw() const;

  // Convolves `input` by `filter` into `output`: with `bias` null,
  // cudnnConvolutionForward; else the bias added and a Relu applied in
  // cudnnConvolutionBiasActivationForward.
  absl::Status Convolve(const Call& call, const dnn::ConvolutionDescriptor& conv,
                        const float* input, const float* filter, const float* bias,
                        float* output);
  absl::Status ConvolveBackwardData(const Call& call, const dnn::ConvolutionDescriptor& conv,
                                    const float* filter, const float* out_backprop,
                                    float* in_backprop);
  absl::Status ConvolveBackwardFilter(const Call& call, const dnn::ConvolutionDescriptor& conv,
                                      const float* input, const float* out_backprop,
                                      float* filter_backprop);

  CudaExecutor* const parent_;  // Not owned.
  const bool autotune_;
  const absl::StatusOr<ComputeFormat> compute_format_;
  // Compute capability 8.0 or later (TF32 tensor cores).
  const bool ampere_or_later_;
  HandlePool<cudnnHandle_t> handles_;
  ConvolutionPlanCache plans_;
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUDA_DNN_H_
