#include "stream/cuda/cuda_dnn.h"

#include "absl/strings/str_cat.h"
#include "stream/cuda/cuda_executor.h"
#include "stream/cuda/cuda_status.h"
#include "stream/cuda/cuda_stream.h"
#include "stream/cuda/cudnn_descriptors.h"
#include "stream/cuda/layout_kernels.h"
#include "stream/cuda/pooling_kernels.h"
#include "stream/cuda/scratch_arena.h"

namespace minitf::se::cuda {
namespace {

constexpr int kHwioToOhwi[4] = {3, 0, 1, 2};
constexpr int kOhwiToHwio[4] = {1, 2, 3, 0};

// The first algorithm in cuDNN's heuristic ranking that works and whose
// workspace fits. `Perf` is one of cuDNN's *AlgoPerf_t structs.
template <typename Perf>
absl::StatusOr<Perf> PickAlgorithm(const Perf* ranked, int count, const char* direction) {
  for (int i = 0; i < count; ++i) {
    if (ranked[i].status == CUDNN_STATUS_SUCCESS &&
        ranked[i].memory <= CudaDnn::kMaxWorkspaceBytes) {
      return ranked[i];
    }
  }
  return absl::UnimplementedError(absl::StrCat("cuDNN offers no ", direction,
                                               " convolution algorithm for this shape within a ",
                                               CudaDnn::kMaxWorkspaceBytes, "-byte workspace"));
}

absl::Status LaunchStatus(cudaError_t error, const char* kernel) {
  return CudaStatus(error, absl::StrCat("launch of ", kernel));
}

// The filter as cuDNN reads it: HWIO transposed to OHWI in scratch.
absl::StatusOr<float*> FilterToOhwi(ScratchArena* scratch, cudaStream_t stream,
                                    const dnn::ConvolutionDescriptor& c, const float* hwio) {
  absl::StatusOr<float*> ohwi =
      scratch->AllocateFloats(c.filter_rows * c.filter_cols * c.in_depth * c.out_depth);
  if (!ohwi.ok()) return ohwi.status();
  const int64_t hwio_dims[4] = {c.filter_rows, c.filter_cols, c.in_depth, c.out_depth};
  MINITF_RETURN_IF_CUDA_ERROR(LaunchTranspose4D(stream, hwio, hwio_dims, kHwioToOhwi, *ohwi));
  return *ohwi;
}

// The input as cuDNN reads it: itself, or zero-padded at the bottom/right.
absl::StatusOr<const float*> PaddedInput(ScratchArena* scratch, cudaStream_t stream,
                                         const dnn::ConvolutionDescriptor& c,
                                         const CudnnConvolution& d, const float* input) {
  if (!d.padded()) return input;
  absl::StatusOr<float*> padded = scratch->AllocateFloats(
      c.batch * (c.in_rows + d.extra_rows) * (c.in_cols + d.extra_cols) * c.in_depth);
  if (!padded.ok()) return padded.status();
  if (cudaError_t e = LaunchPadNhwc(stream, input, c.batch, c.in_rows, c.in_cols, c.in_depth,
                                    d.extra_rows, d.extra_cols, *padded);
      e != cudaSuccess) {
    return LaunchStatus(e, "PadNhwc");
  }
  return static_cast<const float*>(*padded);
}

absl::Status ZeroFill(cudaStream_t stream, float* data, int64_t count) {
  if (count == 0) return absl::OkStatus();
  MINITF_RETURN_IF_CUDA_ERROR(cudaMemsetAsync(data, 0, count * sizeof(float), stream));
  return absl::OkStatus();
}

PoolShape ToPoolShape(const dnn::ConvolutionDescriptor& p) {
  return PoolShape{p.batch,       p.in_rows,     p.in_cols,     p.in_depth,
                   p.filter_rows, p.filter_cols, p.stride_rows, p.stride_cols,
                   p.pad_top,     p.pad_left,    p.out_rows,    p.out_cols};
}

}  // namespace

CudaDnn::CudaDnn(CudaExecutor* parent) : parent_(parent) {}

CudaDnn::~CudaDnn() {
  MutexLock lock(&mu_);
  if (handle_ != nullptr && parent_->Activate().ok()) cudnnDestroy(handle_);
}

absl::StatusOr<CudaStream*> CudaDnn::CheckStream(Stream* stream) const {
  CudaStream* cuda_stream = CudaStream::FromStream(stream);
  if (cuda_stream == nullptr || cuda_stream->executor() != parent_) {
    return absl::InvalidArgumentError("cuDNN needs a stream of the same CUDA device");
  }
  if (absl::Status s = cuda_stream->status(); !s.ok()) return s;
  if (absl::Status active = parent_->Activate(); !active.ok()) return active;
  return cuda_stream;
}

absl::StatusOr<cudnnHandle_t> CudaDnn::HandleFor(cudaStream_t stream) {
  if (handle_ == nullptr) {
    cudnnHandle_t handle = nullptr;
    MINITF_RETURN_IF_CUDNN_ERROR(cudnnCreate(&handle));
    handle_ = handle;
  }
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnSetStream(handle_, stream));
  return handle_;
}

absl::Status CudaDnn::DoConvolve(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                                 const DeviceMemory<float>& input,
                                 const DeviceMemory<float>& filter, DeviceMemory<float>* output) {
  absl::StatusOr<CudaStream*> s = CheckStream(stream);
  if (!s.ok()) return s.status();
  absl::Status status;
  if (IsDegenerate(conv)) {
    status = ZeroFill((*s)->handle(), output->base(),
                      conv.batch * conv.out_rows * conv.out_cols * conv.out_depth);
  } else {
    MutexLock lock(&mu_);
    status = Convolve(*s, conv, input.base(), filter.base(), output->base());
  }
  if (!status.ok()) return (*s)->SetError(status);
  return absl::OkStatus();
}

absl::Status CudaDnn::DoConvolveBackwardData(Stream* stream,
                                             const dnn::ConvolutionDescriptor& conv,
                                             const DeviceMemory<float>& filter,
                                             const DeviceMemory<float>& out_backprop,
                                             DeviceMemory<float>* in_backprop) {
  absl::StatusOr<CudaStream*> s = CheckStream(stream);
  if (!s.ok()) return s.status();
  absl::Status status;
  if (IsDegenerate(conv)) {
    status = ZeroFill((*s)->handle(), in_backprop->base(),
                      conv.batch * conv.in_rows * conv.in_cols * conv.in_depth);
  } else {
    MutexLock lock(&mu_);
    status = ConvolveBackwardData(*s, conv, filter.base(), out_backprop.base(),
                                  in_backprop->base());
  }
  if (!status.ok()) return (*s)->SetError(status);
  return absl::OkStatus();
}

absl::Status CudaDnn::DoConvolveBackwardFilter(Stream* stream,
                                               const dnn::ConvolutionDescriptor& conv,
                                               const DeviceMemory<float>& input,
                                               const DeviceMemory<float>& out_backprop,
                                               DeviceMemory<float>* filter_backprop) {
  absl::StatusOr<CudaStream*> s = CheckStream(stream);
  if (!s.ok()) return s.status();
  absl::Status status;
  if (IsDegenerate(conv)) {
    status = ZeroFill((*s)->handle(), filter_backprop->base(),
                      conv.filter_rows * conv.filter_cols * conv.in_depth * conv.out_depth);
  } else {
    MutexLock lock(&mu_);
    status = ConvolveBackwardFilter(*s, conv, input.base(), out_backprop.base(),
                                    filter_backprop->base());
  }
  if (!status.ok()) return (*s)->SetError(status);
  return absl::OkStatus();
}

absl::Status CudaDnn::Convolve(CudaStream* stream, const dnn::ConvolutionDescriptor& c,
                               const float* input, const float* filter, float* output) {
  const cudaStream_t raw = stream->handle();
  absl::StatusOr<cudnnHandle_t> handle = HandleFor(raw);
  if (!handle.ok()) return handle.status();
  absl::StatusOr<CudnnConvolution> d = DescribeConvolution(c);
  if (!d.ok()) return d.status();
  ScratchArena scratch(parent_, raw);
  absl::StatusOr<const float*> x = PaddedInput(&scratch, raw, c, *d, input);
  if (!x.ok()) return x.status();
  absl::StatusOr<float*> w = FilterToOhwi(&scratch, raw, c, filter);
  if (!w.ok()) return w.status();

  cudnnConvolutionFwdAlgoPerf_t ranked[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnGetConvolutionForwardAlgorithm_v7(
      *handle, d->input.get(), d->filter.get(), d->conv.get(), d->output.get(),
      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, ranked));
  absl::StatusOr<cudnnConvolutionFwdAlgoPerf_t> algo =
      PickAlgorithm(ranked, returned, "forward");
  if (!algo.ok()) return algo.status();
  absl::StatusOr<void*> workspace = scratch.Allocate(algo->memory);
  if (!workspace.ok()) return workspace.status();
  const float one = 1.0f, zero = 0.0f;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnConvolutionForward(
      *handle, &one, d->input.get(), *x, d->filter.get(), *w, d->conv.get(), algo->algo,
      *workspace, algo->memory, &zero, d->output.get(), output));
  return absl::OkStatus();
}

absl::Status CudaDnn::ConvolveBackwardData(CudaStream* stream,
                                           const dnn::ConvolutionDescriptor& c,
                                           const float* filter, const float* out_backprop,
                                           float* in_backprop) {
  const cudaStream_t raw = stream->handle();
  absl::StatusOr<cudnnHandle_t> handle = HandleFor(raw);
  if (!handle.ok()) return handle.status();
  absl::StatusOr<CudnnConvolution> d = DescribeConvolution(c);
  if (!d.ok()) return d.status();
  ScratchArena scratch(parent_, raw);
  absl::StatusOr<float*> w = FilterToOhwi(&scratch, raw, c, filter);
  if (!w.ok()) return w.status();
  // The gradient of the padded input, cropped afterwards.
  float* dx = in_backprop;
  if (d->padded()) {
    absl::StatusOr<float*> padded = scratch.AllocateFloats(
        c.batch * (c.in_rows + d->extra_rows) * (c.in_cols + d->extra_cols) * c.in_depth);
    if (!padded.ok()) return padded.status();
    dx = *padded;
  }

  cudnnConvolutionBwdDataAlgoPerf_t ranked[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int returned = 0;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      *handle, d->filter.get(), d->output.get(), d->conv.get(), d->input.get(),
      CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, ranked));
  absl::StatusOr<cudnnConvolutionBwdDataAlgoPerf_t> algo =
      PickAlgorithm(ranked, returned, "backward-data");
  if (!algo.ok()) return algo.status();
  absl::StatusOr<void*> workspace = scratch.Allocate(algo->memory);
  if (!workspace.ok()) return workspace.status();
  const float one = 1.0f, zero = 0.0f;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnConvolutionBackwardData(
      *handle, &one, d->filter.get(), *w, d->output.get(), out_backprop, d->conv.get(),
      algo->algo, *workspace, algo->memory, &zero, d->input.get(), dx));
  if (d->padded()) {
    if (cudaError_t e = LaunchCropNhwc(raw, dx, c.batch, c.in_rows, c.in_cols, c.in_depth,
                                       d->extra_rows, d->extra_cols, in_backprop);
        e != cudaSuccess) {
      return LaunchStatus(e, "CropNhwc");
    }
  }
  return absl::OkStatus();
}

absl::Status CudaDnn::ConvolveBackwardFilter(CudaStream* stream,
                                             const dnn::ConvolutionDescriptor& c,
                                             const float* input, const float* out_backprop,
                                             float* filter_backprop) {
  const cudaStream_t raw = stream->handle();
  absl::StatusOr<cudnnHandle_t> handle = HandleFor(raw);
  if (!handle.ok()) return handle.status();
  absl::StatusOr<CudnnConvolution> d = DescribeConvolution(c);
  if (!d.ok()) return d.status();
  ScratchArena scratch(parent_, raw);
  absl::StatusOr<const float*> x = PaddedInput(&scratch, raw, c, *d, input);
  if (!x.ok()) return x.status();
  absl::StatusOr<float*> dw_ohwi =
      scratch.AllocateFloats(c.filter_rows * c.filter_cols * c.in_depth * c.out_depth);
  if (!dw_ohwi.ok()) return dw_ohwi.status();

  cudnnConvolutionBwdFilterAlgoPerf_t ranked[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  int returned = 0;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
      *handle, d->input.get(), d->output.get(), d->conv.get(), d->filter.get(),
      CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &returned, ranked));
  absl::StatusOr<cudnnConvolutionBwdFilterAlgoPerf_t> algo =
      PickAlgorithm(ranked, returned, "backward-filter");
  if (!algo.ok()) return algo.status();
  absl::StatusOr<void*> workspace = scratch.Allocate(algo->memory);
  if (!workspace.ok()) return workspace.status();
  const float one = 1.0f, zero = 0.0f;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnConvolutionBackwardFilter(
      *handle, &one, d->input.get(), *x, d->output.get(), out_backprop, d->conv.get(),
      algo->algo, *workspace, algo->memory, &zero, d->filter.get(), *dw_ohwi));
  const int64_t ohwi_dims[4] = {c.out_depth, c.filter_rows, c.filter_cols, c.in_depth};
  if (cudaError_t e = LaunchTranspose4D(raw, *dw_ohwi, ohwi_dims, kOhwiToHwio, filter_backprop);
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
