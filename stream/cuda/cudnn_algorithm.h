// How cuDNN's convolution algorithm is chosen for a plan
// (cudnn_plan_cache.h): by cuDNN's heuristics (cudnnGet*Algorithm_v7,
// instant), or measured (cudnnFind*AlgorithmEx: every algorithm run once on
// the call's own buffers, the fastest kept; TensorFlow's autotuning,
// PyTorch's cudnn.benchmark). Either way the first working algorithm whose
// workspace fits wins.
//
//   absl::StatusOr<AlgorithmChoice> choice = ChooseAlgorithm(
//       handle, ConvolutionDirection::kForward, descriptors, max_workspace, nullptr);
#ifndef MINITF_STREAM_CUDA_CUDNN_ALGORITHM_H_
#define MINITF_STREAM_CUDA_CUDNN_ALGORITHM_H_

#include <cudnn.h>

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "stream/cuda/cudnn_descriptors.h"
#include "stream/cuda/cudnn_plan_cache.h"

namespace minitf::se::cuda {

// What a measured choice runs on, in cuDNN's layouts (the input padded, the
// filter OHWI). Each direction reads two and writes `result` (forward: input,
// filter -> output; backward data: filter, out_backprop -> input gradient;
// backward filter: input, out_backprop -> filter gradient), which the call
// overwrites afterwards. `workspace` holds `workspace_bytes`.
struct MeasureOn {
  const float* input = nullptr;
  const float* filter = nullptr;
  const float* out_backprop = nullptr;
  float* result = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

struct AlgorithmChoice {
  int algorithm = 0;  // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t
  size_t workspace_bytes = 0;
  cudnnMathType_t math = CUDNN_FMA_MATH;  // the math the algorithm was ranked with
  bool measured = false;
  float milliseconds = -1;  // the measured run's time; -1 for the heuristics' choice
  int candidates = 0;       // the algorithms cuDNN ranked
  // cuDNN's whole ranking, for the log, empty unless VLOG 1 is on: "algo
  // (time ms, bytes, math[, status])" per entry, best first.
  std::string ranking;
};

// "forward", "backward-data" or "backward-filter".
const char* ConvolutionDirectionName(ConvolutionDirection direction);

// The heuristics' choice when `measure` is null, else the fastest measured
// on it (synchronous: cuDNN waits for its runs). Unimplemented when no
// algorithm fits `max_workspace_bytes`; cuDNN's error otherwise.
absl::StatusOr<AlgorithmChoice> ChooseAlgorithm(cudnnHandle_t handle,
                                                ConvolutionDirection direction,
                                                const CudnnConvolution& d,
                                                size_t max_workspace_bytes,
                                                const MeasureOn* measure);

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUDNN_ALGORITHM_H_
