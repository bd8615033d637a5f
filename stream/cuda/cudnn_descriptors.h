// cuDNN descriptors owned by std::unique_ptr, and the description of a
// minitf convolution as cuDNN runs it (see cuda_dnn.h for why the input may
// be padded first).
//
//   absl::StatusOr<CudnnConvolution> c = DescribeConvolution(conv, CUDNN_FMA_MATH);
//   cudnnConvolutionForward(handle, &one, c->input.get(), x, c->filter.get(), w,
//                           c->conv.get(), algo, ...);
#ifndef MINITF_STREAM_CUDA_CUDNN_DESCRIPTORS_H_
#define MINITF_STREAM_CUDA_CUDNN_DESCRIPTORS_H_

#include <cudnn.h>

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "stream/dnn.h"

namespace minitf::se::cuda {

struct TensorDescriptorDeleter {
  void operator()(cudnnTensorStruct* d) const { cudnnDestroyTensorDescriptor(d); }
};
struct FilterDescriptorDeleter {
  void operator()(cudnnFilterStruct* d) const { cudnnDestroyFilterDescriptor(d); }
};
struct ConvolutionDescriptorDeleter {
  void operator()(cudnnConvolutionStruct* d) const { cudnnDestroyConvolutionDescriptor(d); }
};
using TensorDescriptor = std::unique_ptr<cudnnTensorStruct, TensorDescriptorDeleter>;
using FilterDescriptor = std::unique_ptr<cudnnFilterStruct, FilterDescriptorDeleter>;
using ConvolutionDescriptor =
    std::unique_ptr<cudnnConvolutionStruct, ConvolutionDescriptorDeleter>;

// The zero rows and columns cuDNN's input needs appended where SAME padding
// is larger after the input than before (cuDNN pads symmetrically).
struct ExtraPadding {
  int64_t rows = 0;
  int64_t cols = 0;

  bool any() const { return rows > 0 || cols > 0; }
};
ExtraPadding ExtraPaddingOf(const dnn::ConvolutionDescriptor& c);

// One convolution in cuDNN's terms. The input (and its gradient) is
// [batch, in_rows + extra rows, in_cols + extra cols, in_depth] (see
// ExtraPaddingOf) and the filter OHWI, in NHWC; in NCHW the input is
// [batch, in_depth, rows, cols] and the filter OIHW. Read-only once made,
// so calls on several threads may share it.
struct CudnnConvolution {
  TensorDescriptor input;
  TensorDescriptor output;
  FilterDescriptor filter;
  ConvolutionDescriptor conv;
};

// True when some size is 0, so cuDNN must not be called (the result is empty
// or all zeros).
bool IsDegenerate(const dnn::ConvolutionDescriptor& c);

// REQUIRES: !IsDegenerate(c). `math` is the convolution's math type
// (CUDNN_FMA_MATH: FP32 only; CUDNN_DEFAULT_MATH: TF32 tensor cores
// allowed); `format` the layout cuDNN reads and writes (CUDNN_TENSOR_NHWC
// or CUDNN_TENSOR_NCHW). InvalidArgument when a size exceeds cuDNN's int
// range; Internal if cuDNN's output size disagrees with `c`.
absl::StatusOr<CudnnConvolution> DescribeConvolution(const dnn::ConvolutionDescriptor& c,
                                                     cudnnMathType_t math,
                                                     cudnnTensorFormat_t format = CUDNN_TENSOR_NHWC);

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUDNN_DESCRIPTORS_H_
