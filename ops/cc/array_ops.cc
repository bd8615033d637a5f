#include "ops/cc/array_ops.h"

namespace minitf::ops {

Output Const(const Scope& scope, const Tensor& value) { return ConstFromTensor(scope, value); }

Output Const(const Scope& scope, const Input& value) {
  if (!value.is_constant()) return Identity(scope, value);
  return ConstFromTensor(scope, value.constant());
}

Output Placeholder(const Scope& scope, DataType dtype, const PlaceholderAttrs& attrs) {
  return OpBuilder(scope, "Placeholder")
      .Attr("dtype", dtype)
      .Attr("shape", attrs.shape)
      .Finalize1();
}

Output Identity(const Scope& scope, Input input) {
  return OpBuilder(scope, "Identity").Input(input).Finalize1();
}

Output NoOp(const Scope& scope) { return OpBuilder(scope, "NoOp").FinalizeNode(); }

Output Reshape(const Scope& scope, Input tensor, Input shape) {
  return OpBuilder(scope, "Reshape").Input(tensor).Input(shape).Finalize1();
}

Output Shape(const Scope& scope, Input input, const ShapeAttrs& attrs) {
  return OpBuilder(scope, "Shape").Input(input).Attr("out_type", attrs.out_type).Finalize1();
}

Output Fill(const Scope& scope, Input dims, Input value) {
  return OpBuilder(scope, "Fill").Input(dims).Input(value).Finalize1();
}

Output ZerosLike(const Scope& scope, Input x) {
  return OpBuilder(scope, "ZerosLike").Input(x).Finalize1();
}

Output OnesLike(const Scope& scope, Input x) {
  return OpBuilder(scope, "OnesLike").Input(x).Finalize1();
}

Output Transpose(const Scope& scope, Input x, Input perm) {
  return OpBuilder(scope, "Transpose").Input(x).Input(perm).Finalize1();
}

Output Size(const Scope& scope, Input input, const SizeAttrs& attrs) {
  return OpBuilder(scope, "Size").Input(input).Attr("out_type", attrs.out_type).Finalize1();
}

Output Rank(const Scope& scope, Input input) {
  return OpBuilder(scope, "Rank").Input(input).Finalize1();
}

Output Squeeze(const Scope& scope, Input input, const SqueezeAttrs& attrs) {
  return OpBuilder(scope, "Squeeze").Input(input).Attr("squeeze_dims", attrs.axis).Finalize1();
}

Output ExpandDims(const Scope& scope, Input input, Input axis) {
  return OpBuilder(scope, "ExpandDims").Input(input).Input(axis).Finalize1();
}

Output BroadcastTo(const Scope& scope, Input input, Input shape) {
  return OpBuilder(scope, "BroadcastTo").Input(input).Input(shape).Finalize1();
}

std::vector<Output> BroadcastGradientArgs(const Scope& scope, Input s0, Input s1) {
  return OpBuilder(scope, "BroadcastGradientArgs").Input(s0).Input(s1).Finalize();
}

Output InvertPermutation(const Scope& scope, Input x) {
  return OpBuilder(scope, "InvertPermutation").Input(x).Finalize1();
}

Output StopGradient(const Scope& scope, Input input) {
  return OpBuilder(scope, "StopGradient").Input(input).Finalize1();
}

Output PreventGradient(const Scope& scope, Input input, const PreventGradientAttrs& attrs) {
  return OpBuilder(scope, "PreventGradient").Input(input).Attr("message", attrs.message).Finalize1();
}

Output Snapshot(const Scope& scope, Input input) {
  return OpBuilder(scope, "Snapshot").Input(input).Finalize1();
}

Output Concat(const Scope& scope, const InputList& values, Input axis) {
  return OpBuilder(scope, "ConcatV2").InputList(values).Input(axis).Finalize1();
}

std::vector<Output> ConcatOffset(const Scope& scope, Input concat_dim, const InputList& shapes) {
  return OpBuilder(scope, "ConcatOffset").Input(concat_dim).InputList(shapes).Finalize();
}

Output Stack(const Scope& scope, const InputList& values, const StackAttrs& attrs) {
  return OpBuilder(scope, "Pack").InputList(values).Attr("axis", attrs.axis).Finalize1();
}

std::vector<Output> Unstack(const Scope& scope, Input value, int64_t num,
                            const StackAttrs& attrs) {
  return OpBuilder(scope, "Unpack")
      .Input(value)
      .Attr("num", num)
      .Attr("axis", attrs.axis)
      .Finalize();
}

std::vector<Output> Split(const Scope& scope, Input axis, Input value, int64_t num_split) {
  return OpBuilder(scope, "Split").Input(axis).Input(value).Attr("num_split", num_split).Finalize();
}

std::vector<Output> SplitV(const Scope& scope, Input value, Input size_splits, Input axis,
                           int64_t num_split) {
  return OpBuilder(scope, "SplitV")
      .Input(value)
      .Input(size_splits)
      .Input(axis)
      .Attr("num_split", num_split)
      .Finalize();
}

Output Slice(const Scope& scope, Input input, Input begin, Input size) {
  return OpBuilder(scope, "Slice").Input(input).Input(begin).Input(size).Finalize1();
}

namespace {

OpBuilder& WithMasks(OpBuilder& b, const StridedSliceAttrs& attrs) {
  return b.Attr("begin_mask", attrs.begin_mask)
      .Attr("end_mask", attrs.end_mask)
      .Attr("ellipsis_mask", attrs.ellipsis_mask)
      .Attr("new_axis_mask", attrs.new_axis_mask)
      .Attr("shrink_axis_mask", attrs.shrink_axis_mask);
}

}  // namespace

Output StridedSlice(const Scope& scope, Input input, Input begin, Input end, Input strides,
                    const StridedSliceAttrs& attrs) {
  OpBuilder b(scope, "StridedSlice");
  b.Input(input).Input(begin).Input(end).Input(strides);
  return WithMasks(b, attrs).Finalize1();
}

Output StridedSliceGrad(const Scope& scope, Input shape, Input begin, Input end, Input strides,
                        Input dy, const StridedSliceAttrs& attrs) {
  OpBuilder b(scope, "StridedSliceGrad");
  b.Input(shape).Input(begin).Input(end).Input(strides).Input(dy);
  return WithMasks(b, attrs).Finalize1();
}

Output Pad(const Scope& scope, Input input, Input paddings) {
  return OpBuilder(scope, "Pad").Input(input).Input(paddings).Finalize1();
}

Output PadV2(const Scope& scope, Input input, Input paddings, Input constant_values) {
  return OpBuilder(scope, "PadV2").Input(input).Input(paddings).Input(constant_values).Finalize1();
}

Output Tile(const Scope& scope, Input input, Input multiples) {
  return OpBuilder(scope, "Tile").Input(input).Input(multiples).Finalize1();
}

Output GatherV2(const Scope& scope, Input params, Input indices, Input axis,
                const GatherV2Attrs& attrs) {
  return OpBuilder(scope, "GatherV2")
      .Input(params)
      .Input(indices)
      .Input(axis)
      .Attr("batch_dims", attrs.batch_dims)
      .Finalize1();
}

Output OneHot(const Scope& scope, Input indices, Input depth, Input on_value, Input off_value,
              const OneHotAttrs& attrs) {
  return OpBuilder(scope, "OneHot")
      .Input(indices)
      .Input(depth)
      .Input(on_value)
      .Input(off_value)
      .Attr("axis", attrs.axis)
      .Finalize1();
}

Output Range(const Scope& scope, Input start, Input limit, Input delta) {
  return OpBuilder(scope, "Range").Input(start).Input(limit).Input(delta).Finalize1();
}

Output UnsortedSegmentSum(const Scope& scope, Input data, Input segment_ids, Input num_segments) {
  return OpBuilder(scope, "UnsortedSegmentSum")
      .Input(data)
      .Input(segment_ids)
      .Input(num_segments)
      .Finalize1();
}

UniqueOutputs Unique(const Scope& scope, Input x, const UniqueAttrs& attrs) {
  std::vector<Output> out =
      OpBuilder(scope, "Unique").Input(x).Attr("out_idx", attrs.out_idx).Finalize();
  if (out.size() != 2) return {};
  return {out[0], out[1]};
}

}  // namespace minitf::ops
