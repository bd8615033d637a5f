// Op definitions for fused batch normalization, as TensorFlow 2.x writes
// them: FusedBatchNorm and FusedBatchNormV3 (training and inference) and
// their gradients FusedBatchNormGrad and FusedBatchNormGradV3. x is a 4-D
// image batch, NHWC or NCHW; the 1-D operands have one entry per channel.
// Only float is implemented (TensorFlow's CPU kernels add half and
// bfloat16, which minitf lacks).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "platform/status_macros.h"
#include "runtime/node_def_util.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf {
namespace {

// The index of the channel dimension of a 4-D x for the node's data_format.
absl::Status ChannelIndex(InferenceContext* c, int* index) {
  std::string data_format;
  MINITF_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  if (data_format == "NHWC") {
    *index = 3;
  } else if (data_format == "NCHW") {
    *index = 1;
  } else if (data_format == "NDHWC" || data_format == "NCDHW") {
    return AttachNodeName(absl::UnimplementedError(absl::StrCat(
                              "data_format '", data_format,
                              "' (5-D batch normalization) is not supported; use NHWC or NCHW")),
                          c->node_def());
  } else {
    return c->Error(absl::StrCat("invalid data_format '", data_format,
                                 "'; expected 'NHWC' or 'NCHW'"));
  }
  return absl::OkStatus();
}

// Merges the 1-D inputs [first, last) into `channels`.
absl::Status MergeChannels(InferenceContext* c, int first, int last,
                           PartialTensorShape* channels) {
  for (int i = first; i < last; ++i) {
    PartialTensorShape vec;
    MINITF_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &vec));
    MINITF_RETURN_IF_ERROR(c->Merge(*channels, vec, channels));
  }
  return absl::OkStatus();
}

// y: x's shape; batch_mean, batch_variance, reserve_space_1/2: [channels];
// reserve_space_3 (V3): a scalar, what minitf's kernels write on every
// device. (TensorFlow says unknown, since cuDNN sizes its workspace there;
// a known shape lets SimGPU's timing mode skip the arithmetic.) mean and variance count only where they
// are read: in inference, or when exponential_avg_factor != 1.
absl::Status FusedBatchNormShape(InferenceContext* c) {
  int channel_index = 3;
  MINITF_RETURN_IF_ERROR(ChannelIndex(c, &channel_index));
  PartialTensorShape x;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &x));
  bool is_training = true;
  MINITF_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  float exponential_avg_factor = 1.0f;
  MINITF_RETURN_IF_ERROR(c->GetAttr("exponential_avg_factor", &exponential_avg_factor));
  const int inputs = is_training && exponential_avg_factor == 1.0f ? 3 : 5;
  PartialTensorShape channels({x.dim_size(channel_index)});
  MINITF_RETURN_IF_ERROR(MergeChannels(c, 1, inputs, &channels));
  std::vector<int64_t> dims(x.dim_sizes().begin(), x.dim_sizes().end());
  dims[channel_index] = channels.dim_size(0);
  c->set_output(0, PartialTensorShape(absl::Span<const int64_t>(dims)));
  for (int i = 1; i <= 4; ++i) c->set_output(i, channels);
  if (c->num_outputs() > 5) c->set_output(5, PartialTensorShape(TensorShape()));
  return absl::OkStatus();
}

// x_backprop: x's shape; scale_backprop, offset_backprop: [channels]; the
// last two outputs (reserve_space_4/5, which TensorFlow also leaves empty): [0].
absl::Status FusedBatchNormGradShape(InferenceContext* c) {
  int channel_index = 3;
  MINITF_RETURN_IF_ERROR(ChannelIndex(c, &channel_index));
  PartialTensorShape y_backprop, x, merged;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &y_backprop));
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &x));
  MINITF_RETURN_IF_ERROR(c->Merge(y_backprop, x, &merged));
  PartialTensorShape channels({merged.dim_size(channel_index)});
  MINITF_RETURN_IF_ERROR(MergeChannels(c, 2, 5, &channels));
  std::vector<int64_t> dims(merged.dim_sizes().begin(), merged.dim_sizes().end());
  dims[channel_index] = channels.dim_size(0);
  c->set_output(0, PartialTensorShape(absl::Span<const int64_t>(dims)));
  c->set_output(1, channels);
  c->set_output(2, channels);
  c->set_output(3, PartialTensorShape({0}));
  c->set_output(4, PartialTensorShape({0}));
  return absl::OkStatus();
}

}  // namespace

// Training (is_training): y = (x - m) / sqrt(v + epsilon) * scale + offset
// with m and v the batch's mean and biased variance per channel;
// batch_mean = m and batch_variance = v * n / (n - 1) (Bessel-corrected)
// when exponential_avg_factor is 1, else the running averages
// (1 - f) * mean + f * m and (1 - f) * variance + f * v * n / (n - 1);
// reserve_space_1 = m and reserve_space_2 = v (what the gradient reads).
// Inference: mean and variance normalize x, and are passed on as
// batch_mean / batch_variance and the reserve spaces.
REGISTER_OP("FusedBatchNorm")
    .Input("x: T")
    .Input("scale: T")
    .Input("offset: T")
    .Input("mean: T")
    .Input("variance: T")
    .Output("y: T")
    .Output("batch_mean: T")
    .Output("batch_variance: T")
    .Output("reserve_space_1: T")
    .Output("reserve_space_2: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: string = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape);

// FusedBatchNorm with the 1-D operands of type U, and reserve_space_3 (on
// the CPU a scalar 0, as in TensorFlow; cuDNN keeps its workspace there).
REGISTER_OP("FusedBatchNormV3")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Output("reserve_space_3: U")
    .Attr("T: {float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: string = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape);

// The gradients of FusedBatchNorm given y_backprop = d(loss)/d(y), with
// reserve_space_1/2 the forward op's (training: the batch mean and biased
// variance; inference: the population mean and variance). The last two
// outputs (reserve_space_4/5) are empty, as in TensorFlow.
REGISTER_OP("FusedBatchNormGrad")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: T")
    .Input("reserve_space_1: T")
    .Input("reserve_space_2: T")
    .Output("x_backprop: T")
    .Output("scale_backprop: T")
    .Output("offset_backprop: T")
    .Output("reserve_space_3: T")
    .Output("reserve_space_4: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: string = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape);

// FusedBatchNormGrad for FusedBatchNormV3; reserve_space_3 is not read.
REGISTER_OP("FusedBatchNormGradV3")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Input("reserve_space_3: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_4: U")
    .Output("reserve_space_5: U")
    .Attr("T: {float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: string = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape);

// Grappler's remapper fusion of FusedBatchNormV3, the Add that alone reads
// its y if there is one, and the Relu that alone reads that (as
// TensorFlow's _FusedBatchNormEx): y = activation(batch norm of x [+
// side_input]), the other outputs FusedBatchNormV3's. activation_mode is
// Identity or Relu; num_side_inputs 0 or 1 (a side input of x's shape).
// Made by the optimizer (optimizer/remapper.h).
REGISTER_OP("_FusedBatchNormEx")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Input("side_input: num_side_inputs * T")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Output("reserve_space_3: U")
    .Attr("T: {float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("num_side_inputs: int = 0")
    .Attr("activation_mode: string = 'Identity'")
    .Attr("data_format: string = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape);

}  // namespace minitf
