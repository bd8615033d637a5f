// Op definitions for neural networks: MatMul, BiasAdd, the activations
// (Relu, ReluGrad, Sigmoid, Tanh), Softmax and
// SparseSoftmaxCrossEntropyWithLogits.
#include "absl/strings/str_cat.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"
#include "runtime/status_macros.h"

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

// output = value, whose last dimension must match the bias's length.
absl::Status BiasAddShape(InferenceContext* c) {
  PartialTensorShape value, bias;
  MINITF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &value));
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &bias));
  if (value.unknown_rank()) {
    c->set_output(0, value);
    return absl::OkStatus();
  }
  const int last = value.dims() - 1;
  const int64_t channels = value.dim_size(last);
  const int64_t bias_size = bias.dim_size(0);
  if (channels >= 0 && bias_size >= 0 && channels != bias_size) {
    return c->Error(absl::StrCat("bias of shape ", bias.DebugString(),
                                 " does not match the last dimension of value ",
                                 value.DebugString()));
  }
  std::vector<int64_t> dims(value.dim_sizes().begin(), value.dim_sizes().end());
  if (dims[last] < 0) dims[last] = bias_size;
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

}  // namespace

REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {float, double, int32, int64}")
    .SetShapeFn(MatMulShape);

REGISTER_OP("BiasAdd")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T")
    .Attr("T: {float, double, int32, int64}")
    .SetShapeFn(BiasAddShape);

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

REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: Tlabels")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {float, double}")
    .Attr("Tlabels: {int32, int64} = int64")
    .SetShapeFn(SparseXentShape);

}  // namespace minitf
