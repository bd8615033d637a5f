#include "stream/cuda/cuda_dnn.h"

#include <memory>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "platform/env.h"
#include "platform/logging.h"
#include "platform/status_macros.h"
#include "platform/tensor_float_32.h"
#include "stream/cuda/cuda_executor.h"
#include "stream/cuda/cuda_status.h"
#include "stream/cuda/cuda_stream.h"
#include "stream/cuda/cudnn_descriptors.h"
#include "stream/cuda/layout_kernels.h"
#include "stream/cuda/pooling_kernels.h"
#include "stream/cuda/scratch_arena.h"

namespace minitf::se::cuda {
namespace {

// Transpose4D's permutations (dst dimension j = src dimension perm[j]).
constexpr int kHwioToOhwi[4] = {3, 0, 1, 2};
constexpr int kOhwiToHwio[4] = {1, 2, 3, 0};
constexpr int kHwioToOihw[4] = {3, 2, 0, 1};
constexpr int kOihwToHwio[4] = {2, 3, 1, 0};
constexpr int kNhwcToNchw[4] = {0, 3, 1, 2};
constexpr int kNchwToNhwc[4] = {0, 2, 3, 1};

absl::Status LaunchStatus(cudaError_t error, const char* kernel) {
  return CudaStatus(error, absl::StrCat("launch of ", kernel));
}

int64_t Elements(const int64_t dims[4]) { return dims[0] * dims[1] * dims[2] * dims[3]; }

// `src` (of `dims`) with its dimensions reordered by `perm`, in scratch.
absl::StatusOr<float*> Transposed(ScratchArena* scratch, cudaStream_t stream, const float* src,
                                  const int64_t dims[4], const int perm[4]) {
  absl::StatusOr<float*> dst = scratch->AllocateFloats(Elements(dims));
  if (!dst.ok()) return dst.status();
  if (cudaError_t e = LaunchTranspose4D(stream, src, dims, perm, *dst); e != cudaSuccess) {
    return LaunchStatus(e, "Transpose4D");
  }
  return *dst;
}

// The filter as cuDNN reads it: HWIO transposed to OHWI (NHWC) or OIHW
// (NCHW) in scratch.
absl::StatusOr<float*> FilterForCudnn(ScratchArena* scratch, cudaStream_t stream,
                                      const dnn::ConvolutionDescriptor& c, bool nchw,
                                      const float* hwio) {
  const int64_t hwio_dims[4] = {c.filter_rows, c.filter_cols, c.in_depth, c.out_depth};
  return Transposed(scratch, stream, hwio, hwio_dims, nchw ? kHwioToOihw : kHwioToOhwi);
}

// An NHWC tensor of `dims` as cuDNN reads it: itself, or transposed to NCHW.
absl::StatusOr<const float*> InComputeLayout(ScratchArena* scratch, cudaStream_t stream,
                                             bool nchw, const float* nhwc,
                                             const int64_t dims[4]) {
  if (!nchw) return nhwc;
  absl::StatusOr<float*> t = Transposed(scratch, stream, nhwc, dims, kNhwcToNchw);
  if (!t.ok()) return t.status();
  return static_cast<const float*>(*t);
}

// Where cuDNN writes a result whose NHWC form goes to `nhwc` (of NHWC
// `dims`): `nhwc` itself, or NCHW scratch that FromComputeLayout moves there.
absl::StatusOr<float*> ResultBuffer(ScratchArena* scratch, bool nchw, float* nhwc,
                                    const int64_t dims[4]) {
  if (!nchw) return nhwc;
  return scratch->AllocateFloats(Elements(dims));
}

absl::Status FromComputeLayout(cudaStream_t stream, bool nchw, const float* result,
                               const int64_t nhwc_dims[4], float* nhwc) {
  if (!nchw) return absl::OkStatus();
  const int64_t nchw_dims[4] = {nhwc_dims[0], nhwc_dims[3], nhwc_dims[1], nhwc_dims[2]};
  if (cudaError_t e = LaunchTranspose4D(stream, result, nchw_dims, kNchwToNhwc, nhwc);
      e != cudaSuccess) {
    return LaunchStatus(e, "Transpose4D");
  }
  return absl::OkStatus();
}

// The elements of the input (or its gradient) as cuDNN sees it, padded.
int64_t PaddedInputElements(const dnn::ConvolutionDescriptor& c, const ExtraPadding& extra) {
  return c.batch * (c.in_rows + extra.rows) * (c.in_cols + extra.cols) * c.in_depth;
}

// The input as cuDNN reads it: itself, or zero-padded at the bottom/right.
absl::StatusOr<const float*> PaddedInput(ScratchArena* scratch, cudaStream_t stream,
                                         const dnn::ConvolutionDescriptor& c,
                                         const ExtraPadding& extra, const float* input) {
  if (!extra.any()) return input;
  absl::StatusOr<float*> padded = scratch->AllocateFloats(PaddedInputElements(c, extra));
  if (!padded.ok()) return padded.status();
  if (cudaError_t e = LaunchPadNhwc(stream, input, c.batch, c.in_rows, c.in_cols, c.in_depth,
                                    extra.rows, extra.cols, *padded);
      e != cudaSuccess) {
    return LaunchStatus(e, "PadNhwc");
  }
  return static_cast<const float*>(*padded);
}

struct ActivationDescriptorDeleter {
  void operator()(cudnnActivationStruct* d) const { cudnnDestroyActivationDescriptor(d); }
};

// What cudnnConvolutionBiasActivationForward adds: the bias's descriptor
// and a Relu that keeps NaN (as the CPU's Relu).
struct BiasRelu {
  TensorDescriptor bias;
  std::unique_ptr<cudnnActivationStruct, ActivationDescriptorDeleter> activation;
};

absl::StatusOr<BiasRelu> DescribeBiasRelu(int64_t channels, bool nchw) {
  BiasRelu out;
  cudnnTensorDescriptor_t bias = nullptr;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnCreateTensorDescriptor(&bias));
  out.bias.reset(bias);
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnSetTensor4dDescriptor(
      bias, nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 1,
      static_cast<int>(channels), 1, 1));
  cudnnActivationDescriptor_t activation = nullptr;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnCreateActivationDescriptor(&activation));
  out.activation.reset(activation);
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnSetActivationDescriptor(activation, CUDNN_ACTIVATION_RELU,
                                                            CUDNN_PROPAGATE_NAN, 0.0));
  return out;
}

absl::Status ZeroFill(cudaStream_t stream, float* data, int64_t count) {
  if (count == 0) return absl::OkStatus();
  MINITF_RETURN_IF_CUDA_ERROR(cudaMemsetAsync(data, 0, count * sizeof(float), stream));
  return absl::OkStatus();
}

// Compute capability 8.0 or later; false when it cannot be read.
bool AmpereOrLater(int ordinal) {
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal) != cudaSuccess) {
    cudaGetLastError();  // Clear it: the caller's next call must not see it.
    return false;
  }
  return major >= 8;
}

bool AutotuneFromEnv() {
  const std::string v = absl::AsciiStrToLower(GetEnvOr("TF_CUDNN_USE_AUTOTUNE", "true"));
  return v != "0" && v != "false";
}

absl::StatusOr<cudnnHandle_t> CreateHandle() {
  cudnnHandle_t handle = nullptr;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnCreate(&handle));
  return handle;
}

PoolShape ToPoolShape(const dnn::ConvolutionDescriptor& p) {
  return PoolShape{p.batch,       p.in_rows,     p.in_cols,     p.in_depth,
                   p.filter_rows, p.filter_cols, p.stride_rows, p.stride_cols,
                   p.pad_top,     p.pad_left,    p.out_rows,    p.out_cols};
}

}  // namespace

CudaDnn::CudaDnn(CudaExecutor* parent)
    : parent_(parent),
      autotune_(AutotuneFromEnv()),
      compute_format_(ComputeFormatFromEnv()),
      ampere_or_later_(AmpereOrLater(parent->device_ordinal())),
      handles_(&CreateHandle, [](cudnnHandle_t h) { cudnnDestroy(h); }) {}

// The pool, destroyed after this body, destroys its handles on the device
// made current here.
CudaDnn::~CudaDnn() { parent_->Activate().IgnoreError(); }

absl::StatusOr<CudaStream*> CudaDnn::CheckStream(Stream* stream) const {
  CudaStream* cuda_stream = CudaStream::FromStream(stream);
  if (cuda_stream == nullptr || cuda_stream->executor() != parent_) {
    return absl::InvalidArgumentError("cuDNN needs a stream of the same CUDA device");
  }
  if (absl::Status s = cuda_stream->status(); !s.ok()) return s;
  if (absl::Status active = parent_->Activate(); !active.ok()) return active;
  return cuda_stream;
}

absl::StatusOr<CudaDnn::ComputeFormat> CudaDnn::ComputeFormatFromEnv() {
  const std::string value =
      absl::AsciiStrToLower(GetEnvOr("MINITF_CUDNN_COMPUTE_FORMAT", "nhwc"));
  if (value == "nhwc") return ComputeFormat::kNhwc;
  if (value == "nchw") return ComputeFormat::kNchw;
  if (value == "auto") return ComputeFormat::kAuto;
  return absl::InvalidArgumentError(absl::StrCat("MINITF_CUDNN_COMPUTE_FORMAT='", value,
                                                 "' is not one of auto, nhwc, nchw"));
}

absl::StatusOr<bool> CudaDnn::ComputeInNchw() const {
  if (!compute_format_.ok()) return compute_format_.status();
  switch (*compute_format_) {
    case ComputeFormat::kNhwc:
      return false;
    case ComputeFormat::kNchw:
      return true;
    case ComputeFormat::kAuto:
      return !(ampere_or_later_ && TensorFloat32ExecutionEnabled());
  }
  return false;
}

absl::Status CudaDnn::RunConvolution(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                                     float* result, int64_t result_elements,
                                     ScratchAllocator* scratch_allocator,
                                     absl::FunctionRef<absl::Status(const Call&)> body) {
  absl::StatusOr<CudaStream*> s = CheckStream(stream);
  if (!s.ok()) return s.status();
  const cudaStream_t raw = (*s)->handle();
  const absl::Status status = [&]() -> absl::Status {
    if (IsDegenerate(conv)) return ZeroFill(raw, result, result_elements);
    MINITF_ASSIGN_OR_RETURN(const bool nchw, ComputeInNchw());
    MINITF_ASSIGN_OR_RETURN(HandlePool<cudnnHandle_t>::Lease handle, handles_.Acquire());
    MINITF_RETURN_IF_CUDNN_ERROR(cudnnSetStream(handle.get(), raw));
    ScratchArena scratch(parent_, raw, scratch_allocator);
    return body(Call{raw, handle.get(), &scratch, nchw});
  }();
  // A fusion cuDNN declined has left the stream as it was.
  if (!status.ok() && !absl::IsUnimplemented(status)) return (*s)->SetError(status);
  return status;
}

absl::StatusOr<const ConvolutionPlan*> CudaDnn::PlanFor(ConvolutionDirection direction,
                                                        const dnn::ConvolutionDescriptor& c,
                                                        const Call& call,
                                                        const MeasureOn& operands) {
  const bool nchw = call.nchw;
  const bool tf32 = TensorFloat32ExecutionEnabled();
  const ConvolutionPlanCache::Key key{direction, tf32, c, nchw};
  if (const ConvolutionPlan* plan = plans_.Find(key); plan != nullptr) return plan;

  auto plan = std::make_unique<ConvolutionPlan>();
  MINITF_ASSIGN_OR_RETURN(plan->descriptors,
                          DescribeConvolution(c, tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH,
                                              nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC));
  std::optional<MeasureOn> measure;
  // The measuring workspace, once per shape, is the plugin's own: the op's
  // allocator may be held to a memory limit the call's workspace fits in.
  ScratchArena measuring(parent_, call.stream, /*allocator=*/nullptr);
  if (autotune_) {
    // A device too full for the largest workspace is left to the heuristics.
    if (absl::StatusOr<void*> workspace = measuring.Allocate(kMaxWorkspaceBytes); workspace.ok()) {
      measure = operands;
      measure->workspace = *workspace;
      measure->workspace_bytes = kMaxWorkspaceBytes;
    }
  }
  absl::StatusOr<AlgorithmChoice> choice =
      ChooseAlgorithm(call.handle, direction, plan->descriptors, kMaxWorkspaceBytes,
                      measure.has_value() ? &*measure : nullptr);
  if (tf32 && measure.has_value()) {
    // TF32 allows tensor cores; it does not oblige them. cuDNN 9 ranks only
    // tensor-op algorithms under CUDNN_DEFAULT_MATH, and for some shapes all
    // of them are slow (ResNet-50's 3x3 stride-2 input gradient at 512
    // channels: 18.7 ms on an H200 against 1.2 ms in FMA), so the FMA
    // algorithms are measured too and the faster kept.
    MINITF_RETURN_IF_CUDNN_ERROR(
        cudnnSetConvolutionMathType(plan->descriptors.conv.get(), CUDNN_FMA_MATH));
    absl::StatusOr<AlgorithmChoice> fma =
        ChooseAlgorithm(call.handle, direction, plan->descriptors, kMaxWorkspaceBytes, &*measure);
    if (fma.ok() && (!choice.ok() || fma->milliseconds < choice->milliseconds)) {
      fma->ranking = absl::StrCat(fma->ranking, "; tensor-op: ",
                                  choice.ok() ? choice->ranking : choice.status().ToString());
      choice = std::move(fma);
    } else if (fma.ok() && choice.ok()) {
      choice->ranking = absl::StrCat(choice->ranking, "; fma: ", fma->ranking);
    }
    MINITF_RETURN_IF_CUDNN_ERROR(
        cudnnSetConvolutionMathType(plan->descriptors.conv.get(), CUDNN_DEFAULT_MATH));
  }
  if (!choice.ok() && measure.has_value()) {
    // Measuring failed (cuDNN could not run the candidates): ask the heuristics.
    choice =
        ChooseAlgorithm(call.handle, direction, plan->descriptors, kMaxWorkspaceBytes, nullptr);
  }
  if (!choice.ok()) return choice.status();
  // The algorithm runs in the math it was ranked with (tensor-core TF32 or
  // FMA); with TF32 off the descriptor allows FMA alone.
  if (tf32) {
    MINITF_RETURN_IF_CUDNN_ERROR(
        cudnnSetConvolutionMathType(plan->descriptors.conv.get(), choice->math));
  }
  VLOG(1, "cuDNN {} convolution in {}, input {}x{}x{}x{}, filter {}x{} to {}, stride {}x{}, "
          "output {}x{}: algorithm {} of {} ({}, {} ms), {} workspace bytes; ranked: {}",
       ConvolutionDirectionName(direction), nchw ? "NCHW" : "NHWC", c.batch, c.in_rows, c.in_cols,
       c.in_depth, c.filter_rows,
       c.filter_cols, c.out_depth, c.stride_rows, c.stride_cols, c.out_rows, c.out_cols,
       choice->algorithm, choice->candidates, choice->measured ? "measured" : "heuristic",
       choice->milliseconds, choice->workspace_bytes, choice->ranking);
  plan->algorithm = choice->algorithm;
  plan->workspace_bytes = choice->workspace_bytes;
  plan->measured = choice->measured;
  return plans_.Insert(key, std::move(plan));
}

absl::Status CudaDnn::DoConvolve(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                                 const DeviceMemory<float>& input,
                                 const DeviceMemory<float>& filter, DeviceMemory<float>* output,
                                 ScratchAllocator* scratch_allocator) {
  return RunConvolution(stream, conv, output->base(),
                        conv.batch * conv.out_rows * conv.out_cols * conv.out_depth,
                        scratch_allocator, [&](const Call& call) {
                          return Convolve(call, conv, input.base(), filter.base(),
                                          /*bias=*/nullptr, output->base());
                        });
}

absl::Status CudaDnn::DoFusedConvolveBiasRelu(Stream* stream,
                                              const dnn::ConvolutionDescriptor& conv,
                                              const DeviceMemory<float>& input,
                                              const DeviceMemory<float>& filter,
                                              const DeviceMemory<float>& bias,
                                              DeviceMemory<float>* output,
                                              ScratchAllocator* scratch_allocator) {
  // Without work the result is Relu(bias) everywhere, which the caller's
  // bias pass gives.
  if (IsDegenerate(conv)) return absl::UnimplementedError("a convolution without work");
  return RunConvolution(stream, conv, output->base(),
                        conv.batch * conv.out_rows * conv.out_cols * conv.out_depth,
                        scratch_allocator, [&](const Call& call) {
                          return Convolve(call, conv, input.base(), filter.base(), bias.base(),
                                          output->base());
                        });
}

absl::Status CudaDnn::DoConvolveBackwardData(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                                             const DeviceMemory<float>& filter,
                                             const DeviceMemory<float>& out_backprop,
                                             DeviceMemory<float>* in_backprop,
                                             ScratchAllocator* scratch_allocator) {
  return RunConvolution(stream, conv, in_backprop->base(),
                        conv.batch * conv.in_rows * conv.in_cols * conv.in_depth,
                        scratch_allocator, [&](const Call& call) {
                          return ConvolveBackwardData(call, conv, filter.base(),
                                                      out_backprop.base(), in_backprop->base());
                        });
}

absl::Status CudaDnn::DoConvolveBackwardFilter(Stream* stream,
                                               const dnn::ConvolutionDescriptor& conv,
                                               const DeviceMemory<float>& input,
                                               const DeviceMemory<float>& out_backprop,
                                               DeviceMemory<float>* filter_backprop,
                                               ScratchAllocator* scratch_allocator) {
  return RunConvolution(
      stream, conv, filter_backprop->base(),
      conv.filter_rows * conv.filter_cols * conv.in_depth * conv.out_depth, scratch_allocator,
      [&](const Call& call) {
        return ConvolveBackwardFilter(call, conv, input.base(), out_backprop.base(),
                                      filter_backprop->base());
      });
}

absl::Status CudaDnn::Convolve(const Call& call, const dnn::ConvolutionDescriptor& c,
                               const float* input, const float* filter, const float* bias,
                               float* output) {
  const cudaStream_t raw = call.stream;
  ScratchArena* const scratch = call.scratch;
  const bool nchw = call.nchw;
  const ExtraPadding extra = ExtraPaddingOf(c);
  const int64_t x_dims[4] = {c.batch, c.in_rows + extra.rows, c.in_cols + extra.cols, c.in_depth};
  const int64_t y_dims[4] = {c.batch, c.out_rows, c.out_cols, c.out_depth};
  MINITF_ASSIGN_OR_RETURN(const float* padded, PaddedInput(scratch, raw, c, extra, input));
  MINITF_ASSIGN_OR_RETURN(const float* x, InComputeLayout(scratch, raw, nchw, padded, x_dims));
  MINITF_ASSIGN_OR_RETURN(const float* w, FilterForCudnn(scratch, raw, c, nchw, filter));
  MINITF_ASSIGN_OR_RETURN(float* y, ResultBuffer(scratch, nchw, output, y_dims));
  MINITF_ASSIGN_OR_RETURN(const ConvolutionPlan* plan,
                          PlanFor(ConvolutionDirection::kForward, c, call,
                                  MeasureOn{.input = x, .filter = w, .result = y}));
  MINITF_ASSIGN_OR_RETURN(void* workspace, scratch->Allocate(plan->workspace_bytes));
  const CudnnConvolution& d = plan->descriptors;
  const float one = 1.0f, zero = 0.0f;
  const auto algorithm = static_cast<cudnnConvolutionFwdAlgo_t>(plan->algorithm);
  if (bias == nullptr) {
    MINITF_RETURN_IF_CUDNN_ERROR(cudnnConvolutionForward(
        call.handle, &one, d.input.get(), x, d.filter.get(), w, d.conv.get(), algorithm,
        workspace, plan->workspace_bytes, &zero, d.output.get(), y));
  } else {
    // z (scaled by 0) is y itself; the bias is 1 x C x 1 x 1.
    MINITF_ASSIGN_OR_RETURN(BiasRelu fused, DescribeBiasRelu(c.out_depth, nchw));
    const cudnnStatus_t s = cudnnConvolutionBiasActivationForward(
        call.handle, &one, d.input.get(), x, d.filter.get(), w, d.conv.get(), algorithm,
        workspace, plan->workspace_bytes, &zero, d.output.get(), y, fused.bias.get(), bias,
        fused.activation.get(), d.output.get(), y);
    // cuDNN fuses some configurations only: the caller then runs the
    // convolution and its own bias pass.
    if (s == CUDNN_STATUS_NOT_SUPPORTED) {
      return absl::UnimplementedError("cuDNN does not fuse this convolution's bias and Relu");
    }
    MINITF_RETURN_IF_CUDNN_ERROR(s);
  }
  return FromComputeLayout(raw, nchw, y, y_dims, output);
}

absl::Status CudaDnn::ConvolveBackwardData(const Call& call, const dnn::ConvolutionDescriptor& c,
                                           const float* filter, const float* out_backprop,
                                           float* in_backprop) {
  const cudaStream_t raw = call.stream;
  ScratchArena* const scratch = call.scratch;
  const bool nchw = call.nchw;
  MINITF_ASSIGN_OR_RETURN(const float* w, FilterForCudnn(scratch, raw, c, nchw, filter));
  const int64_t dy_dims[4] = {c.batch, c.out_rows, c.out_cols, c.out_depth};
  MINITF_ASSIGN_OR_RETURN(const float* dy,
                          InComputeLayout(scratch, raw, nchw, out_backprop, dy_dims));
  // The gradient of the padded input (NHWC), cropped afterwards.
  const ExtraPadding extra = ExtraPaddingOf(c);
  const int64_t dx_dims[4] = {c.batch, c.in_rows + extra.rows, c.in_cols + extra.cols,
                              c.in_depth};
  float* dx = in_backprop;
  if (extra.any()) {
    MINITF_ASSIGN_OR_RETURN(dx, scratch->AllocateFloats(PaddedInputElements(c, extra)));
  }
  MINITF_ASSIGN_OR_RETURN(float* result, ResultBuffer(scratch, nchw, dx, dx_dims));
  MINITF_ASSIGN_OR_RETURN(
      const ConvolutionPlan* plan,
      PlanFor(ConvolutionDirection::kBackwardData, c, call,
              MeasureOn{.filter = w, .out_backprop = dy, .result = result}));
  MINITF_ASSIGN_OR_RETURN(void* workspace, scratch->Allocate(plan->workspace_bytes));
  const CudnnConvolution& d = plan->descriptors;
  const float one = 1.0f, zero = 0.0f;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnConvolutionBackwardData(
      call.handle, &one, d.filter.get(), w, d.output.get(), dy, d.conv.get(),
      static_cast<cudnnConvolutionBwdDataAlgo_t>(plan->algorithm), workspace, plan->workspace_bytes,
      &zero, d.input.get(), result));
  MINITF_RETURN_IF_ERROR(FromComputeLayout(raw, nchw, result, dx_dims, dx));
  if (extra.any()) {
    if (cudaError_t e = LaunchCropNhwc(raw, dx, c.batch, c.in_rows, c.in_cols, c.in_depth,
                                       extra.rows, extra.cols, in_backprop);
        e != cudaSuccess) {
      return LaunchStatus(e, "CropNhwc");
    }
  }
  return absl::OkStatus();
}

absl::Status CudaDnn::ConvolveBackwardFilter(const Call& call,
                                             const dnn::ConvolutionDescriptor& c,
                                             const float* input, const float* out_backprop,
                                             float* filter_backprop) {
  const cudaStream_t raw = call.stream;
  ScratchArena* const scratch = call.scratch;
  const bool nchw = call.nchw;
  const ExtraPadding extra = ExtraPaddingOf(c);
  const int64_t x_dims[4] = {c.batch, c.in_rows + extra.rows, c.in_cols + extra.cols, c.in_depth};
  const int64_t dy_dims[4] = {c.batch, c.out_rows, c.out_cols, c.out_depth};
  MINITF_ASSIGN_OR_RETURN(const float* padded, PaddedInput(scratch, raw, c, extra, input));
  MINITF_ASSIGN_OR_RETURN(const float* x, InComputeLayout(scratch, raw, nchw, padded, x_dims));
  MINITF_ASSIGN_OR_RETURN(const float* dy,
                          InComputeLayout(scratch, raw, nchw, out_backprop, dy_dims));
  // The filter gradient as cuDNN writes it: OHWI, or OIHW in NCHW.
  MINITF_ASSIGN_OR_RETURN(float* dw, scratch->AllocateFloats(c.filter_rows * c.filter_cols *
                                                            c.in_depth * c.out_depth));
  MINITF_ASSIGN_OR_RETURN(
      const ConvolutionPlan* plan,
      PlanFor(ConvolutionDirection::kBackwardFilter, c, call,
              MeasureOn{.input = x, .out_backprop = dy, .result = dw}));
  MINITF_ASSIGN_OR_RETURN(void* workspace, scratch->Allocate(plan->workspace_bytes));
  const CudnnConvolution& d = plan->descriptors;
  const float one = 1.0f, zero = 0.0f;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnConvolutionBackwardFilter(
      call.handle, &one, d.input.get(), x, d.output.get(), dy, d.conv.get(),
      static_cast<cudnnConvolutionBwdFilterAlgo_t>(plan->algorithm), workspace,
      plan->workspace_bytes, &zero, d.filter.get(), dw));
  const int64_t ohwi_dims[4] = {c.out_depth, c.filter_rows, c.filter_cols, c.in_depth};
  const int64_t oihw_dims[4] = {c.out_depth, c.in_depth, c.filter_rows, c.filter_cols};
  if (cudaError_t e = LaunchTranspose4D(raw, dw, nchw ? oihw_dims : ohwi_dims,
                                        nchw ? kOihwToHwio : kOhwiToHwio, filter_backprop);
      e != cudaSuccess) {
    return LaunchStatus(e, "Transpose4D");
  }
  return absl::OkStatus();
}

absl::Status CudaDnn::DoMaxPool(Stream* stream, const dnn::ConvolutionDescriptor& pool,
                                const DeviceMemory<float>& input, DeviceMemory<float>* output) {
  absl::StatusOr<CudaStream*> s = CheckStream(stream);
  if (!s.ok()) return s.status();
  if (cudaError_t e = LaunchMaxPool((*s)->handle(), ToPoolShape(pool), input.base(),
                                    output->base());
      e != cudaSuccess) {
    return (*s)->SetError(LaunchStatus(e, "MaxPool"));
  }
  return absl::OkStatus();
}

absl::Status CudaDnn::DoMaxPoolBackward(Stream* stream, const dnn::ConvolutionDescriptor& pool,
                                        const DeviceMemory<float>& input,
                                        const DeviceMemory<float>& output,
                                        const DeviceMemory<float>& out_backprop,
                                        DeviceMemory<float>* in_backprop) {
  absl::StatusOr<CudaStream*> s = CheckStream(stream);
  if (!s.ok()) return s.status();
  // The maxima are found again in `input`, as on the CPU; `output` is unused.
  if (cudaError_t e = LaunchMaxPoolGrad((*s)->handle(), ToPoolShape(pool), input.base(),
                                        out_backprop.base(), in_backprop->base());
      e != cudaSuccess) {
    return (*s)->SetError(LaunchStatus(e, "MaxPoolGrad"));
  }
  return absl::OkStatus();
}

}  // namespace minitf::se::cuda
