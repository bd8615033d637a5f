#include "ops/util/window_attrs.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/status_macros.h"
#include "runtime/node_def_util.h"

namespace minitf {
namespace {

std::string ListString(const std::vector<int64_t>& values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

// A 4-element list attr (strides, ksize, dilations) in the order of the
// images' layout: every entry positive, the batch and depth entries 1.
absl::Status CheckWindowList(absl::string_view attr, const std::vector<int64_t>& values,
                             bool nchw) {
  if (values.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(attr, " must have 4 elements (",
                                                   nchw ? "NCHW" : "NHWC", "), got ",
                                                   ListString(values)));
  }
  for (int64_t v : values) {
    if (v < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(attr, " must be positive, got ", ListString(values)));
    }
  }
  if (values[0] != 1 || values[nchw ? 1 : 3] != 1) {
    return absl::UnimplementedError(absl::StrCat(
        attr, " in the batch and depth dimensions must be 1, got ", ListString(values)));
  }
  return absl::OkStatus();
}

// The data_format attr ("NHWC" where absent): true for "NCHW", false for
// "NHWC", InvalidArgument naming the value otherwise.
absl::StatusOr<bool> ReadIsNchw(const NodeDef& def) {
  std::string data_format = "NHWC";
  if (HasNodeAttr(def, "data_format")) {
    MINITF_RETURN_IF_ERROR(GetNodeAttr(def, "data_format", &data_format));
  }
  if (data_format == "NHWC") return false;
  if (data_format == "NCHW") return true;
  return absl::InvalidArgumentError(
      absl::StrCat("invalid data_format '", data_format, "'; expected 'NHWC' or 'NCHW'"));
}

// TensorFlow 2.x writes explicit_paddings = [] on these ops; anything else
// needs padding 'EXPLICIT', which is not implemented.
absl::Status CheckNoExplicitPaddings(const NodeDef& def) {
  if (!HasNodeAttr(def, "explicit_paddings")) return absl::OkStatus();
  std::vector<int64_t> explicit_paddings;
  MINITF_RETURN_IF_ERROR(GetNodeAttr(def, "explicit_paddings", &explicit_paddings));
  if (explicit_paddings.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("explicit_paddings must be empty unless padding is 'EXPLICIT', got ",
                   ListString(explicit_paddings)));
}

absl::StatusOr<Padding> ReadPadding(const NodeDef& def) {
  std::string padding;
  MINITF_RETURN_IF_ERROR(GetNodeAttr(def, "padding", &padding));
  return ParsePadding(padding);
}

}  // namespace

absl::StatusOr<Padding> ParsePadding(absl::string_view padding) {
  if (padding == "VALID") return Padding::kValid;
  if (padding == "SAME") return Padding::kSame;
  if (padding == "EXPLICIT") {
    return absl::UnimplementedError("padding 'EXPLICIT' is not supported; use 'SAME' or 'VALID'");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("invalid padding '", padding, "'; expected 'SAME' or 'VALID'"));
}

absl::StatusOr<WindowedSize> ComputeWindowedSize(int64_t input, int64_t window, int64_t stride,
                                                 int64_t dilation, Padding padding) {
  if (input < 0 || window < 1 || stride < 1 || dilation < 1) {
    return absl::InvalidArgumentError(absl::StrCat("bad window geometry [input_size: ", input,
                                                   ", window_size: ", window, ", stride: ", stride,
                                                   ", dilation: ", dilation, "]"));
  }
  const int64_t effective = (window - 1) * dilation + 1;
  WindowedSize size;
  if (padding == Padding::kValid) {
    // C++ division truncates toward zero, as in TensorFlow: an input a
    // little smaller than the window gives an empty output, not an error.
    size.output = (input - effective + stride) / stride;
  } else {
    size.output = (input + stride - 1) / stride;
    const int64_t needed = std::max<int64_t>(0, (size.output - 1) * stride + effective - input);
    size.pad_before = needed / 2;
  }
  if (size.output < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "computed output size would be negative: ", size.output, " [input_size: ", input,
        ", effective_filter_size: ", effective, ", stride: ", stride, "]"));
  }
  return size;
}

absl::StatusOr<Conv2DParameters> ReadConv2DParameters(const NodeDef& def) {
  MINITF_ASSIGN_OR_RETURN(const bool nchw, ReadIsNchw(def));
  std::vector<int64_t> strides;
  MINITF_RETURN_IF_ERROR(GetNodeAttr(def, "strides", &strides));
  MINITF_RETURN_IF_ERROR(CheckWindowList("strides", strides, nchw));
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  if (HasNodeAttr(def, "dilations")) {
    MINITF_RETURN_IF_ERROR(GetNodeAttr(def, "dilations", &dilations));
  }
  MINITF_RETURN_IF_ERROR(CheckWindowList("dilations", dilations, nchw));
  MINITF_ASSIGN_OR_RETURN(Padding padding, ReadPadding(def));
  MINITF_RETURN_IF_ERROR(CheckNoExplicitPaddings(def));
  const int rows = nchw ? 2 : 1;
  Conv2DParameters params;
  params.stride_rows = strides[rows];
  params.stride_cols = strides[rows + 1];
  params.dilation_rows = dilations[rows];
  params.dilation_cols = dilations[rows + 1];
  params.padding = padding;
  params.nchw = nchw;
  return params;
}

absl::StatusOr<Pool2DParameters> ReadPool2DParameters(const NodeDef& def) {
  std::vector<int64_t> ksize, strides;
  MINITF_RETURN_IF_ERROR(GetNodeAttr(def, "ksize", &ksize));
  MINITF_ASSIGN_OR_RETURN(const bool nchw, ReadIsNchw(def));
  MINITF_RETURN_IF_ERROR(CheckWindowList("ksize", ksize, nchw));
  MINITF_RETURN_IF_ERROR(GetNodeAttr(def, "strides", &strides));
  MINITF_RETURN_IF_ERROR(CheckWindowList("strides", strides, nchw));
  MINITF_ASSIGN_OR_RETURN(Padding padding, ReadPadding(def));
  MINITF_RETURN_IF_ERROR(CheckNoExplicitPaddings(def));
  const int rows = nchw ? 2 : 1;
  Pool2DParameters params;
  params.window_rows = ksize[rows];
  params.window_cols = ksize[rows + 1];
  params.stride_rows = strides[rows];
  params.stride_cols = strides[rows + 1];
  params.padding = padding;
  params.nchw = nchw;
  return params;
}

}  // namespace minitf
