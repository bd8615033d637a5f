// Op definitions for neural networks: MatMul, BiasAdd, BiasAddGrad, L2Loss, the
// activations (Relu, Relu6, LeakyRelu, Elu, Sigmoid, Tanh) and the gradients
// ReluGrad, Relu6Grad, LeakyReluGrad, EluGrad, Softmax, LogSoftmax,
// SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits, and
// the image ops (NHWC or NCHW) Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter,
// MaxPool, MaxPoolGrad, AvgPool and AvgPoolGrad. (Batch normalization:
// batch_norm_ops.cc.)
#include <string>

#include "absl/strings/str_cat.h"
#include "ops/util/window_attrs.h"
#include "platform/status_macros.h"
#include "runtime/node_def_util.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf {
namespace {

// product = op(a) * op(b), where op transposes when the attr says so.
absl::Status MatMulShape(InferenceContext* c) {
  PartialTensorShape a, b;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &b));
  bool transpose_a = false, transpose_b = false;
  MINITF_RETURN_IF_ERROR(c->GetAttr("transpose_a", &transpose_a));
  MINITF_RETURN_IF_ERROR(c->GetAttr("transpose_b", &transpose_b));
  const int64_t a_inner = a.dim_size(transpose_a ? 0 : 1);
  const int64_t b_inner = b.dim_size(transpose_b ? 1 : 0);
  if (a_inner >= 0 && b_inner >= 0 && a_inner != b_inner) {
    return c->Error(absl::StrCat("Matrix size-incompatible: In[0]: ", c->input(0).DebugString(),
                                 ", In[1]: ", c->input(1).DebugString(),
                                 (transpose_a ? " (transpose_a)" : ""),
                                 (transpose_b ? " (transpose_b)" : "")));
  }
  c->set_output(
      0, PartialTensorShape({a.dim_size(transpose_a ? 1 : 0), b.dim_size(transpose_b ? 0 : 1)}));
  return absl::OkStatus();
}

// output = value, whose channel dimension (the last under NHWC, dimension 1
// under NCHW, where value has rank at least 3) must match the bias's length.
absl::Status BiasAddShape(InferenceContext* c) {
  std::string data_format;
  MINITF_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  const bool nchw = data_format == "NCHW";
  if (!nchw && data_format != "NHWC") {
    return c->Error(absl::StrCat("data_format '", data_format,
                                 "' is not supported: BiasAdd takes 'NHWC' or 'NCHW'"));
  }
  PartialTensorShape value, bias;
  MINITF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), nchw ? 3 : 2, &value));
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &bias));
  if (value.unknown_rank()) {
    c->set_output(0, value);
    return absl::OkStatus();
  }
  const int channel_dim = nchw ? 1 : value.dims() - 1;
  const int64_t channels = value.dim_size(channel_dim);
  const int64_t bias_size = bias.dim_size(0);
  if (channels >= 0 && bias_size >= 0 && channels != bias_size) {
    return c->Error(absl::StrCat("bias of shape ", bias.DebugString(),
                                 " does not match the channel dimension of value ",
                                 value.DebugString(), " under ", data_format));
  }
  std::vector<int64_t> dims(value.dim_sizes().begin(), value.dim_sizes().end());
  if (dims[channel_dim] < 0) dims[channel_dim] = bias_size;
  c->set_output(0, PartialTensorShape(absl::Span<const int64_t>(dims)));
  return absl::OkStatus();
}

// Two inputs of one shape (ReluGrad): the output has the merged shape.
absl::Status MergedBinaryShape(InferenceContext* c) {
  PartialTensorShape merged;
  MINITF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &merged));
  c->set_output(0, merged);
  return absl::OkStatus();
}

absl::Status SoftmaxShape(InferenceContext* c) {
  PartialTensorShape logits;
  MINITF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &logits));
  c->set_output(0, logits);
  return absl::OkStatus();
}

// The gradient of BiasAdd's bias: a vector as long as the channel
// dimension (the last under NHWC, dimension 1 under NCHW).
absl::Status BiasAddGradShape(InferenceContext* c) {
  std::string data_format;
  MINITF_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  const bool nchw = data_format == "NCHW";
  if (!nchw && data_format != "NHWC") {
    return c->Error(absl::StrCat("data_format '", data_format,
                                 "' is not supported: use 'NHWC' or 'NCHW'"));
  }
  PartialTensorShape grad;
  MINITF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), nchw ? 3 : 2, &grad));
  if (grad.unknown_rank()) {
    c->set_output(0, PartialTensorShape::UnknownOfRank(1));
  } else {
    c->set_output(0, PartialTensorShape({grad.dim_size(nchw ? 1 : grad.dims() - 1)}));
  }
  return absl::OkStatus();
}

// loss: [batch]; backprop: [batch, classes], the broadcast of features and
// labels, which must be a matrix.
absl::Status XentShape(InferenceContext* c) {
  PartialTensorShape both;
  absl::Status s = shape_fns::BroadcastShapes(c->input(0), c->input(1), &both);
  if (!s.ok()) {
    return c->Error(absl::StrCat("logits and labels must be broadcastable: ", s.message()));
  }
  PartialTensorShape matrix;
  MINITF_RETURN_IF_ERROR(c->WithRank(both, 2, &matrix));
  c->set_output(0, PartialTensorShape({matrix.dim_size(0)}));
  c->set_output(1, matrix);
  return absl::OkStatus();
}

// loss: [batch]; backprop: [batch, classes].
absl::Status SparseXentShape(InferenceContext* c) {
  PartialTensorShape features, labels;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &features));
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &labels));
  PartialTensorShape batch;
  MINITF_RETURN_IF_ERROR(c->Merge(PartialTensorShape({features.dim_size(0)}), labels, &batch));
  c->set_output(0, batch);
  c->set_output(1, PartialTensorShape({batch.dim_size(0), features.dim_size(1)}));
  return absl::OkStatus();
}

// One spatial output dimension of a windowed op; -1 when the input's size or
// the window's is unknown.
absl::Status WindowedDim(InferenceContext* c, absl::string_view dimension, int64_t input,
                         int64_t window, int64_t stride, int64_t dilation, Padding padding,
                         int64_t* output) {
  *output = -1;
  if (input < 0 || window < 0) return absl::OkStatus();
  absl::StatusOr<WindowedSize> size = ComputeWindowedSize(input, window, stride, dilation, padding);
  if (!size.ok()) return c->Error(absl::StrCat(dimension, ": ", size.status().message()));
  *output = size->output;
  return absl::OkStatus();
}

// output: [batch, out_rows, out_cols, out_depth] from input
// [batch, rows, cols, in_depth] and filter [rows, cols, in_depth, out_depth]
// (under NCHW: [batch, out_depth, out_rows, out_cols] from
// [batch, in_depth, rows, cols]).
absl::Status Conv2DShape(InferenceContext* c) {
  absl::StatusOr<Conv2DParameters> params = ReadConv2DParameters(c->node_def());
  if (!params.ok()) return AttachNodeName(params.status(), c->node_def());
  PartialTensorShape input, filter;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  const int depth_dim = params->nchw ? 1 : 3;
  const int rows_dim = params->nchw ? 2 : 1;
  const int64_t in_depth = input.dim_size(depth_dim);
  const int64_t filter_depth = filter.dim_size(2);
  if (in_depth >= 0 && filter_depth >= 0 && in_depth != filter_depth) {
    return c->Error(absl::StrCat("input depth ", in_depth, " does not match filter in_depth ",
                                 filter_depth, " (input shape ", input.DebugString(),
                                 ", filter shape ", filter.DebugString(), ")"));
  }
  int64_t rows, cols;
  MINITF_RETURN_IF_ERROR(WindowedDim(c, "rows", input.dim_size(rows_dim), filter.dim_size(0),
                                     params->stride_rows, params->dilation_rows, params->padding,
                                     &rows));
  MINITF_RETURN_IF_ERROR(WindowedDim(c, "cols", input.dim_size(rows_dim + 1), filter.dim_size(1),
                                     params->stride_cols, params->dilation_cols, params->padding,
                                     &cols));
  const int64_t batch = input.dim_size(0);
  const int64_t out_depth = filter.dim_size(3);
  c->set_output(0, params->nchw ? PartialTensorShape({batch, out_depth, rows, cols})
                                : PartialTensorShape({batch, rows, cols, out_depth}));
  return absl::OkStatus();
}

// Grappler's remapper fusion of Conv2D, BiasAdd and an activation (as
// TensorFlow's _FusedConv2D): output = act(conv2d(input, filter) + args[0]).
// fused_ops is ["BiasAdd"] or ["BiasAdd", act] with act one of Relu, Relu6,
// Elu, Tanh; num_args is 1, num_host_args 0. The window attrs (data_format
// included) are Conv2D's; filter_format HWIO only. Made by the optimizer
// (optimizer/remapper.h); epsilon, leakyrelu_alpha and use_cudnn_on_gpu are
// TensorFlow's attrs, unused by these fusions.
absl::Status FusedConv2DShape(InferenceContext* c) {
  std::string filter_format = "HWIO";
  if (HasNodeAttr(c->node_def(), "filter_format")) {
    MINITF_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "filter_format", &filter_format));
  }
  if (filter_format != "HWIO") {
    return AttachNodeName(
        absl::UnimplementedError(absl::StrCat("filter_format ", filter_format,
                                              " is not supported; only HWIO")),
        c->node_def());
  }
  return Conv2DShape(c);
}

// The gradients of Conv2D: output 0 has the shape the int32 vector input
// `sizes_input` holds (rank 4, dimensions unknown where it is not a constant).
absl::Status Conv2DBackpropShape(InferenceContext* c, int sizes_input) {
  MINITF_RETURN_IF_ERROR(
      AttachNodeName(ReadConv2DParameters(c->node_def()).status(), c->node_def()));
  // The other operand (the filter for the input's gradient, the input for
  // the filter's) and out_backprop are images or filters: rank 4.
  PartialTensorShape operand, out_backprop, sizes, output;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(sizes_input == 0 ? 1 : 0), 4, &operand));
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(2), 4, &out_backprop));
  MINITF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(sizes_input, &sizes));
  MINITF_RETURN_IF_ERROR(c->WithRank(sizes, 4, &output));
  c->set_output(0, output);
  return absl::OkStatus();
}

// MaxPool and AvgPool. output: [batch, out_rows, out_cols, depth] from input
// [batch, rows, cols, depth] (under NCHW: [batch, depth, out_rows, out_cols]
// from [batch, depth, rows, cols]).
absl::Status PoolShape(InferenceContext* c) {
  absl::StatusOr<Pool2DParameters> params = ReadPool2DParameters(c->node_def());
  if (!params.ok()) return AttachNodeName(params.status(), c->node_def());
  PartialTensorShape input;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  const int rows_dim = params->nchw ? 2 : 1;
  int64_t rows, cols;
  MINITF_RETURN_IF_ERROR(WindowedDim(c, "rows", input.dim_size(rows_dim), params->window_rows,
                                     params->stride_rows, 1, params->padding, &rows));
  MINITF_RETURN_IF_ERROR(WindowedDim(c, "cols", input.dim_size(rows_dim + 1),
                                     params->window_cols, params->stride_cols, 1,
                                     params->padding, &cols));
  const int64_t batch = input.dim_size(0);
  const int64_t depth = input.dim_size(params->nchw ? 1 : 3);
  c->set_output(0, params->nchw ? PartialTensorShape({batch, depth, rows, cols})
                                : PartialTensorShape({batch, rows, cols, depth}));
  return absl::OkStatus();
}

// output: the shape of orig_input.
absl::Status MaxPoolGradShape(InferenceContext* c) {
  MINITF_RETURN_IF_ERROR(
      AttachNodeName(ReadPool2DParameters(c->node_def()).status(), c->node_def()));
  PartialTensorShape orig_input, orig_output, grad;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &orig_input));
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &orig_output));
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(2), 4, &grad));
  c->set_output(0, orig_input);
  return absl::OkStatus();
}

// output: the shape the int32 vector orig_input_shape holds (rank 4).
absl::Status AvgPoolGradShape(InferenceContext* c) {
  MINITF_RETURN_IF_ERROR(
      AttachNodeName(ReadPool2DParameters(c->node_def()).status(), c->node_def()));
  PartialTensorShape sizes, output, grad;
  MINITF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &sizes));
  MINITF_RETURN_IF_ERROR(c->WithRank(sizes, 4, &output));
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &grad));
  c->set_output(0, output);
  return absl::OkStatus();
}

}  // namespace

// grad_a and grad_b (newer TensorFlow: the node computes a gradient) are
// accepted and ignored.
REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {float, double, int32, int64}")
    .Attr("grad_a: bool = false")
    .Attr("grad_b: bool = false")
    .SetShapeFn(MatMulShape);

// Grappler's remapper fusion of MatMul, BiasAdd and an activation (as
// TensorFlow's _FusedMatMul): product = act(op(a) * op(b) + args[0]).
// fused_ops is ["BiasAdd"] or ["BiasAdd", act] with act one of Relu, Relu6,
// Elu, Tanh, GeluApproximate, GeluExact (tf.nn.gelu with approximate true
// and false); num_args is 1. Or, on the CPU (TensorFlow's oneDNN fusion of
// a residual connection), ["BiasAdd", "Add"] with num_args 2: product =
// op(a) * op(b) + args[0] + args[1], args[1] of the product's shape. Made by
// the optimizer (optimizer/remapper.h),
// never by TensorFlow's graphs; epsilon and leakyrelu_alpha are TensorFlow's
// attrs, unused by these fusions.
REGISTER_OP("_FusedMatMul")
    .Input("a: T")
    .Input("b: T")
    .Input("args: num_args * T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {float, double}")
    .Attr("num_args: int >= 0")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .SetShapeFn(MatMulShape);

// data_format: only "NHWC" (the bias along the last dimension).
REGISTER_OP("BiasAdd")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T")
    .Attr("T: {float, double, int32, int64}")
    .Attr("data_format: string = 'NHWC'")
    .SetShapeFn(BiasAddShape);

// The gradient of BiasAdd with respect to its bias: out_backprop summed over
// every dimension but the channel one (see BiasAddGradShape).
REGISTER_OP("BiasAddGrad")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {float, double, int32, int64}")
    .Attr("data_format: string = 'NHWC'")
    .SetShapeFn(BiasAddGradShape);

// sum(t ** 2) / 2: the weight-decay term of tf.nn.l2_loss.
REGISTER_OP("L2Loss")
    .Input("t: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_fns::ScalarShape);

REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {float, double, int32, int64}")
    .SetShapeFn(shape_fns::UnchangedShape);

// backprops = gradients where features > 0, else 0.
REGISTER_OP("ReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {float, double, int32, int64}")
    .SetShapeFn(MergedBinaryShape);

// min(max(features, 0), 6).
REGISTER_OP("Relu6")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {float, double, int32, int64}")
    .SetShapeFn(shape_fns::UnchangedShape);

// backprops = gradients where 0 < features < 6, else 0.
REGISTER_OP("Relu6Grad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {float, double, int32, int64}")
    .SetShapeFn(MergedBinaryShape);

// features where features > 0, else alpha * features.
REGISTER_OP("LeakyRelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {float, double} = float")
    .SetShapeFn(shape_fns::UnchangedShape);

// backprops = gradients where features > 0, else alpha * gradients.
REGISTER_OP("LeakyReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {float, double} = float")
    .SetShapeFn(MergedBinaryShape);

// features where features >= 0, else exp(features) - 1.
REGISTER_OP("Elu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_fns::UnchangedShape);

// Given outputs = Elu(features): backprops = gradients where outputs >= 0,
// else gradients * (outputs + 1).
REGISTER_OP("EluGrad")
    .Input("gradients: T")
    .Input("outputs: T")
    .Output("backprops: T")
    .Attr("T: {float, double}")
    .SetShapeFn(MergedBinaryShape);

REGISTER_OP("Sigmoid")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_fns::UnchangedShape);

REGISTER_OP("Tanh")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_fns::UnchangedShape);

// Softmax over the last dimension.
REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr("T: {float, double}")
    .SetShapeFn(SoftmaxShape);

// logits - log(sum(exp(logits))) over the last dimension.
REGISTER_OP("LogSoftmax")
    .Input("logits: T")
    .Output("logsoftmax: T")
    .Attr("T: {float, double}")
    .SetShapeFn(SoftmaxShape);

// features [batch, classes] and labels (a probability distribution per row)
// broadcast to a matrix; loss[b] = -sum_j labels[b,j] * log softmax(features)[b,j]
// and backprop = softmax(features) - labels.
REGISTER_OP("SoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: T")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {float, double}")
    .SetShapeFn(XentShape);

REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: Tlabels")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {float, double}")
    .Attr("Tlabels: {int32, int64} = int64")
    .SetShapeFn(SparseXentShape);

// NHWC only. use_cudnn_on_gpu and explicit_paddings are accepted for
// TensorFlow compatibility: the first is ignored, the second must be empty.
REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: string")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: string = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(Conv2DShape);

REGISTER_OP("_FusedConv2D")
    .Input("input: T")
    .Input("filter: T")
    .Input("args: num_args * T")
    .Input("host_args: num_host_args * float")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("num_args: int >= 0")
    .Attr("num_host_args: int = 0")
    .Attr("strides: list(int)")
    .Attr("padding: string")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: string = 'NHWC'")
    .Attr("filter_format: string = 'HWIO'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .SetShapeFn(FusedConv2DShape);

// output = d(loss)/d(input) of a Conv2D whose input has shape input_sizes.
REGISTER_OP("Conv2DBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: string")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: string = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn([](InferenceContext* c) { return Conv2DBackpropShape(c, 0); });

// output = d(loss)/d(filter) of a Conv2D whose filter has shape filter_sizes.
REGISTER_OP("Conv2DBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: string")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: string = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn([](InferenceContext* c) { return Conv2DBackpropShape(c, 1); });

// NHWC only; explicit_paddings must be empty (padding 'EXPLICIT' is not
// implemented).
REGISTER_OP("MaxPool")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {float, double} = float")
    .Attr("ksize: list(int)")
    .Attr("strides: list(int)")
    .Attr("padding: string")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: string = 'NHWC'")
    .SetShapeFn(PoolShape);

// output = d(loss)/d(orig_input) given grad = d(loss)/d(orig_output); each
// window's gradient goes to its first maximum.
REGISTER_OP("MaxPoolGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr("T: {float, double} = float")
    .Attr("ksize: list(int)")
    .Attr("strides: list(int)")
    .Attr("padding: string")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: string = 'NHWC'")
    .SetShapeFn(MaxPoolGradShape);

// The mean of each window, per channel, over the input elements the window
// covers (SAME windows clipped by the padding divide by fewer). NHWC only.
REGISTER_OP("AvgPool")
    .Input("value: T")
    .Output("output: T")
    .Attr("ksize: list(int)")
    .Attr("strides: list(int)")
    .Attr("padding: string")
    .Attr("data_format: string = 'NHWC'")
    .Attr("T: {float, double}")
    .SetShapeFn(PoolShape);

// output = d(loss)/d(value) of an AvgPool whose value has shape
// orig_input_shape, given grad = d(loss)/d(output).
REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int)")
    .Attr("strides: list(int)")
    .Attr("padding: string")
    .Attr("data_format: string = 'NHWC'")
    .Attr("T: {float, double}")
    .SetShapeFn(AvgPoolGradShape);

}  // namespace minitf
