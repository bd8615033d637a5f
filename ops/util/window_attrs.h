// The attrs of the 2-D sliding-window ops (Conv2D, MaxPool, AvgPool and
// their gradients) read and checked once, and TensorFlow's SAME / VALID output-size
// arithmetic. Used by the ops' shape functions (ops/defs/nn_ops.cc) and by
// their kernels, so a graph and a kernel reject the same attrs the same way.
//
//   MINITF_ASSIGN_OR_RETURN(Conv2DParameters params, ReadConv2DParameters(node_def));
//   MINITF_ASSIGN_OR_RETURN(WindowedSize rows,
//                           ComputeWindowedSize(in_rows, filter_rows, params.stride_rows,
//                                               params.dilation_rows, params.padding));
//
// Errors name the attr and its value but not the node: a kernel constructor
// passes them on as they are (CreateOpKernel prefixes the node), a shape
// function wraps them with AttachNodeName.
//
// data_format is "NHWC" or "NCHW" (the strides, dilations and pooling windows
// then list [batch, depth, rows, cols]). Padding "EXPLICIT" (with a non-empty
// explicit_paddings) and strides, dilations and pooling windows other than 1
// in the batch and depth dimensions are Unimplemented.
#ifndef MINITF_OPS_UTIL_WINDOW_ATTRS_H_
#define MINITF_OPS_UTIL_WINDOW_ATTRS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/graph_def.h"

namespace minitf {

enum class Padding {
  kValid,  // Windows lie wholly inside the input.
  kSame,   // Zero padding so that output = ceil(input / stride).
};

// "SAME" / "VALID"; Unimplemented for "EXPLICIT", InvalidArgument otherwise.
absl::StatusOr<Padding> ParsePadding(absl::string_view padding);

// One spatial dimension of a windowed op's output.
struct WindowedSize {
  int64_t output = 0;      // Number of window positions.
  int64_t pad_before = 0;  // Padding before the first input element (top or left).
};

// TensorFlow's GetWindowedOutputSize: with the effective window
// (window - 1) * dilation + 1, VALID gives (input - effective + stride) / stride
// and SAME gives ceil(input / stride) with the padding split evenly, the odd
// element after. InvalidArgument (naming the sizes) when the output would be
// negative or a size is not positive.
absl::StatusOr<WindowedSize> ComputeWindowedSize(int64_t input, int64_t window, int64_t stride,
                                                 int64_t dilation, Padding padding);

// Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter.
struct Conv2DParameters {
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  int64_t dilation_rows = 1;
  int64_t dilation_cols = 1;
  Padding padding = Padding::kValid;
  // data_format "NCHW": images are [batch, depth, rows, cols]; otherwise
  // [batch, rows, cols, depth]. Filters are HWIO either way.
  bool nchw = false;
};
// Reads strides, padding, explicit_paddings, data_format and dilations.
absl::StatusOr<Conv2DParameters> ReadConv2DParameters(const NodeDef& def);

// MaxPool, MaxPoolGrad, AvgPool, AvgPoolGrad.
struct Pool2DParameters {
  int64_t window_rows = 1;
  int64_t window_cols = 1;
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  Padding padding = Padding::kValid;
  bool nchw = false;  // As Conv2DParameters::nchw.
};
// Reads ksize, strides, padding, explicit_paddings and data_format.
absl::StatusOr<Pool2DParameters> ReadPool2DParameters(const NodeDef& def);

}  // namespace minitf

#endif  // MINITF_OPS_UTIL_WINDOW_ATTRS_H_
