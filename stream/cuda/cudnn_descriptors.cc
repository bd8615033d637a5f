#include "stream/cuda/cudnn_descriptors.h"

#include <algorithm>
#include <climits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "stream/cuda/cuda_status.h"

namespace minitf::se::cuda {
namespace {

absl::Status CheckFitsInt(int64_t value, const char* what) {
  if (value >= 0 && value <= INT_MAX) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("cuDNN convolution: ", what, " = ", value, " does not fit cuDNN's int sizes"));
}

absl::StatusOr<TensorDescriptor> MakeTensor(cudnnTensorFormat_t format, int64_t n, int64_t rows,
                                            int64_t cols, int64_t depth) {
  cudnnTensorDescriptor_t raw = nullptr;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnCreateTensorDescriptor(&raw));
  TensorDescriptor desc(raw);
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnSetTensor4dDescriptor(
      raw, format, CUDNN_DATA_FLOAT, static_cast<int>(n), static_cast<int>(depth),
      static_cast<int>(rows), static_cast<int>(cols)));
  return desc;
}

}  // namespace

bool IsDegenerate(const dnn::ConvolutionDescriptor& c) {
  return c.batch == 0 || c.in_rows == 0 || c.in_cols == 0 || c.in_depth == 0 ||
         c.filter_rows == 0 || c.filter_cols == 0 || c.out_depth == 0 || c.out_rows == 0 ||
         c.out_cols == 0;
}

ExtraPadding ExtraPaddingOf(const dnn::ConvolutionDescriptor& c) {
  return ExtraPadding{std::max<int64_t>(0, (c.out_rows - 1) * c.stride_rows + c.filter_rows -
                                               c.in_rows - 2 * c.pad_top),
                      std::max<int64_t>(0, (c.out_cols - 1) * c.stride_cols + c.filter_cols -
                                               c.in_cols - 2 * c.pad_left)};
}

absl::StatusOr<CudnnConvolution> DescribeConvolution(const dnn::ConvolutionDescriptor& c,
                                                     cudnnMathType_t math,
                                                     cudnnTensorFormat_t format) {
  CudnnConvolution d;
  const ExtraPadding extra = ExtraPaddingOf(c);
  const int64_t rows = c.in_rows + extra.rows, cols = c.in_cols + extra.cols;
  for (auto [value, what] : {std::pair<int64_t, const char*>{c.batch, "batch"},
                             {rows, "input rows"},
                             {cols, "input cols"},
                             {c.in_depth, "input depth"},
                             {c.filter_rows, "filter rows"},
                             {c.filter_cols, "filter cols"},
                             {c.out_depth, "output depth"},
                             {c.stride_rows, "row stride"},
                             {c.stride_cols, "col stride"},
                             {c.pad_top, "top padding"},
                             {c.pad_left, "left padding"}}) {
    if (absl::Status s = CheckFitsInt(value, what); !s.ok()) return s;
  }

  absl::StatusOr<TensorDescriptor> input = MakeTensor(format, c.batch, rows, cols, c.in_depth);
  if (!input.ok()) return input.status();
  d.input = *std::move(input);
  absl::StatusOr<TensorDescriptor> output =
      MakeTensor(format, c.batch, c.out_rows, c.out_cols, c.out_depth);
  if (!output.ok()) return output.status();
  d.output = *std::move(output);

  cudnnFilterDescriptor_t filter = nullptr;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnCreateFilterDescriptor(&filter));
  d.filter.reset(filter);
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnSetFilter4dDescriptor(
      filter, CUDNN_DATA_FLOAT, format, static_cast<int>(c.out_depth),
      static_cast<int>(c.in_depth), static_cast<int>(c.filter_rows),
      static_cast<int>(c.filter_cols)));

  cudnnConvolutionDescriptor_t conv = nullptr;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnCreateConvolutionDescriptor(&conv));
  d.conv.reset(conv);
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnSetConvolution2dDescriptor(
      conv, static_cast<int>(c.pad_top), static_cast<int>(c.pad_left),
      static_cast<int>(c.stride_rows), static_cast<int>(c.stride_cols), /*dilation_h=*/1,
      /*dilation_w=*/1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnSetConvolutionMathType(conv, math));

  int n = 0, depth = 0, out_rows = 0, out_cols = 0;
  MINITF_RETURN_IF_CUDNN_ERROR(cudnnGetConvolution2dForwardOutputDim(
      conv, d.input.get(), filter, &n, &depth, &out_rows, &out_cols));
  if (n != c.batch || depth != c.out_depth || out_rows != c.out_rows || out_cols != c.out_cols) {
    return absl::InternalError(absl::StrCat(
        "cuDNN computes a convolution output of [", n, ",", out_rows, ",", out_cols, ",", depth,
        "] where [", c.batch, ",", c.out_rows, ",", c.out_cols, ",", c.out_depth,
        "] was expected"));
  }
  return d;
}

}  // namespace minitf::se::cuda
