#include "stream/cuda/cudnn_algorithm.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "platform/logging.h"
#include "stream/cuda/cuda_status.h"

namespace minitf::se::cuda {
namespace {

// The first entry of cuDNN's ranking (heuristic or measured) that works and
// whose workspace fits. `Perf` is one of cuDNN's *AlgoPerf_t structs.
template <typename Perf>
std::string Ranking(const Perf* ranked, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    absl::StrAppend(&out, i == 0 ? "" : "; ", static_cast<int>(ranked[i].algo), " (",
                    ranked[i].time, " ms, ", ranked[i].memory, " B, ",
                    ranked[i].mathType == CUDNN_FMA_MATH ? "fma" : "tensor-op",
                    ranked[i].status == CUDNN_STATUS_SUCCESS ? "" : ", failed", ")");
  }
  return out;
}

template <typename Perf>
absl::StatusOr<AlgorithmChoice> FirstThatFits(const Perf* ranked, int count, size_t max_bytes,
                                              ConvolutionDirection direction, bool measured) {
  for (int i = 0; i < count; ++i) {
    if (ranked[i].status == CUDNN_STATUS_SUCCESS && ranked[i].memory <= max_bytes) {
      return AlgorithmChoice{static_cast<int>(ranked[i].algo),
                             ranked[i].memory,
                             ranked[i].mathType,
                             measured,
                             measured ? ranked[i].time : -1.0f,
                             count,
                             VLOG_IS_ON(1) ? Ranking(ranked, count) : std::string()};
    }
  }
  return absl::UnimplementedError(
      absl::StrCat("cuDNN offers no ", ConvolutionDirectionName(direction),
                   " convolution algorithm for this shape within a ", max_bytes, "-byte workspace"));
}

absl::StatusOr<AlgorithmChoice> Forward(cudnnHandle_t h, const CudnnConvolution& d,
                                        size_t max_bytes, const MeasureOn* m) {
  cudnnConvolutionFwdAlgoPerf_t ranked[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int n = 0;
  if (m == nullptr) {
    MINITF_RETURN_IF_CUDNN_ERROR(cudnnGetConvolutionForwardAlgorithm_v7(
        h, d.input.get(), d.filter.get(), d.conv.get(), d.output.get(),
        CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, ranked));
  } else {
    MINITF_RETURN_IF_CUDNN_ERROR(cudnnFindConvolutionForwardAlgorithmEx(
        h, d.input.get(), m->input, d.filter.get(), m->filter, d.conv.get(), d.output.get(),
        m->result, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, ranked, m->workspace, m->workspace_bytes));
  }
  return FirstThatFits(ranked, n, max_bytes, ConvolutionDirection::kForward, m != nullptr);
}

absl::StatusOr<AlgorithmChoice> BackwardData(cudnnHandle_t h, const CudnnConvolution& d,
                                             size_t max_bytes, const MeasureOn* m) {
  cudnnConvolutionBwdDataAlgoPerf_t ranked[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int n = 0;
  if (m == nullptr) {
    MINITF_RETURN_IF_CUDNN_ERROR(cudnnGetConvolutionBackwardDataAlgorithm_v7(
        h, d.filter.get(), d.output.get(), d.conv.get(), d.input.get(),
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, ranked));
  } else {
    MINITF_RETURN_IF_CUDNN_ERROR(cudnnFindConvolutionBackwardDataAlgorithmEx(
        h, d.filter.get(), m->filter, d.output.get(), m->out_backprop, d.conv.get(), d.input.get(),
        m->result, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, ranked, m->workspace,
        m->workspace_bytes));
  }
  return FirstThatFits(ranked, n, max_bytes, ConvolutionDirection::kBackwardData, m != nullptr);
}

absl::StatusOr<AlgorithmChoice> BackwardFilter(cudnnHandle_t h, const CudnnConvolution& d,
                                               size_t max_bytes, const MeasureOn* m) {
  cudnnConvolutionBwdFilterAlgoPerf_t ranked[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  int n = 0;
  if (m == nullptr) {
    MINITF_RETURN_IF_CUDNN_ERROR(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
        h, d.input.get(), d.output.get(), d.conv.get(), d.filter.get(),
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, ranked));
  } else {
    MINITF_RETURN_IF_CUDNN_ERROR(cudnnFindConvolutionBackwardFilterAlgorithmEx(
        h, d.input.get(), m->input, d.output.get(), m->out_backprop, d.conv.get(), d.filter.get(),
        m->result, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, ranked, m->workspace,
        m->workspace_bytes));
  }
  return FirstThatFits(ranked, n, max_bytes, ConvolutionDirection::kBackwardFilter, m != nullptr);
}

}  // namespace

const char* ConvolutionDirectionName(ConvolutionDirection direction) {
  switch (direction) {
    case ConvolutionDirection::kForward:
      return "forward";
    case ConvolutionDirection::kBackwardData:
      return "backward-data";
    case ConvolutionDirection::kBackwardFilter:
      return "backward-filter";
  }
  return "?";
}

absl::StatusOr<AlgorithmChoice> ChooseAlgorithm(cudnnHandle_t handle,
                                                ConvolutionDirection direction,
                                                const CudnnConvolution& d,
                                                size_t max_workspace_bytes,
                                                const MeasureOn* measure) {
  // A measured choice can use only the workspace it was given.
  const size_t max_bytes = measure == nullptr
                               ? max_workspace_bytes
                               : std::min(max_workspace_bytes, measure->workspace_bytes);
  switch (direction) {
    case ConvolutionDirection::kForward:
      return Forward(handle, d, max_bytes, measure);
    case ConvolutionDirection::kBackwardData:
      return BackwardData(handle, d, max_bytes, measure);
    case ConvolutionDirection::kBackwardFilter:
      return BackwardFilter(handle, d, max_bytes, measure);
  }
  return absl::InternalError("unknown convolution direction");
}

}  // namespace minitf::se::cuda
