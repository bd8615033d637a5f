// Graph-builder functions for the array ops: Const, Placeholder, Identity,
// NoOp, the shape ops Reshape, Shape, Size, Rank, Fill, ZerosLike, OnesLike,
// Squeeze, ExpandDims, BroadcastTo, BroadcastGradientArgs, Transpose,
// InvertPermutation, the forwarding ops StopGradient, PreventGradient,
// Snapshot, and joining, splitting, slicing and gathering (Concat, Stack,
// Unstack, Split, SplitV, Slice, StridedSlice, Pad, Tile, GatherV2, OneHot,
// Range, Unique, UnsortedSegmentSum and the gradient helpers ConcatOffset and
// StridedSliceGrad). Names follow TensorFlow's C++ API: Concat builds a
// ConcatV2 node, Stack a Pack node, Unstack an Unpack node.
//
//   auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {-1, 3}});
//   auto c = ops::Const(root, Tensor::FromVector<float>({1, 2, 3}));
//   auto i = ops::Identity(root, x);
//   auto r = ops::Reshape(root, x, {3, -1});       // -1: inferred
//   auto z = ops::Fill(root, ops::Shape(root, x), 0.0f);
//   auto t = ops::Transpose(root, x, {1, 0});     // [3, ?]
//   auto c = ops::Concat(root, {x, x}, 0);         // [-1, 3] joined on axis 0
//   auto row = ops::StridedSlice(root, x, {0}, {1}, {1}, {.shrink_axis_mask = 1});
#ifndef MINITF_OPS_CC_ARRAY_OPS_H_
#define MINITF_OPS_CC_ARRAY_OPS_H_

#include <string>
#include <vector>

#include "ops/cc/scope.h"

namespace minitf::ops {

Output Const(const Scope& scope, const Tensor& value);
// A constant from a literal: Const(s, 2.0f), Const(s, {1.0f, 2.0f}).
Output Const(const Scope& scope, const Input& value);

struct PlaceholderAttrs {
  PartialTensorShape shape;  // Unknown by default.
};
Output Placeholder(const Scope& scope, DataType dtype, const PlaceholderAttrs& attrs = {});

Output Identity(const Scope& scope, Input input);

// A node that computes nothing, used as a target to group control inputs.
Output NoOp(const Scope& scope);

// `tensor`'s elements with the shape the int32/int64 vector `shape` holds;
// one entry may be -1, inferred from the element count. Shares the buffer.
Output Reshape(const Scope& scope, Input tensor, Input shape);

struct ShapeAttrs {
  DataType out_type = DT_INT32;  // Or DT_INT64.
};
// The dimensions of `input`, as a vector.
Output Shape(const Scope& scope, Input input, const ShapeAttrs& attrs = {});

// A tensor of the shape `dims` holds, every element the scalar `value`.
Output Fill(const Scope& scope, Input dims, Input value);

// Zeros / ones of `x`'s type and shape.
Output ZerosLike(const Scope& scope, Input x);
Output OnesLike(const Scope& scope, Input x);

// x with its dimensions reordered: output dimension i is x's dimension
// perm[i]. perm: an int32 or int64 vector, a permutation of [0, rank(x)).
Output Transpose(const Scope& scope, Input x, Input perm);

// The number of elements / dimensions of `input`, as a scalar.
struct SizeAttrs {
  DataType out_type = DT_INT32;  // Or DT_INT64.
};
Output Size(const Scope& scope, Input input, const SizeAttrs& attrs = {});
Output Rank(const Scope& scope, Input input);

struct SqueezeAttrs {
  std::vector<int64_t> axis;  // The size-1 dimensions to drop; empty: all.
};
Output Squeeze(const Scope& scope, Input input, const SqueezeAttrs& attrs = {});
// `input` with a dimension of size 1 inserted at `axis` (a scalar).
Output ExpandDims(const Scope& scope, Input input, Input axis);
// `input` broadcast to the shape `shape` holds.
Output BroadcastTo(const Scope& scope, Input input, Input shape);
// {r0, r1}: the dimensions the gradients of operands of shapes s0 and s1
// are summed over.
std::vector<Output> BroadcastGradientArgs(const Scope& scope, Input s0, Input s1);
// y[x[i]] = i.
Output InvertPermutation(const Scope& scope, Input x);

// Forward `input` (gradients stop at StopGradient; asking for one through
// PreventGradient is an error saying `message`).
Output StopGradient(const Scope& scope, Input input);
struct PreventGradientAttrs {
  std::string message;
};
Output PreventGradient(const Scope& scope, Input input, const PreventGradientAttrs& attrs = {});
// A copy of `input` in a buffer of its own.
Output Snapshot(const Scope& scope, Input input);

// `values` joined along `axis` (ConcatV2).
Output Concat(const Scope& scope, const InputList& values, Input axis);
// The offsets of each of `shapes` in their concatenation along concat_dim.
std::vector<Output> ConcatOffset(const Scope& scope, Input concat_dim, const InputList& shapes);

struct StackAttrs {
  int64_t axis = 0;
};
// `values` stacked along a new dimension `axis` (Pack).
Output Stack(const Scope& scope, const InputList& values, const StackAttrs& attrs = {});
// The `num` slices of `value` along `axis` (Unpack).
std::vector<Output> Unstack(const Scope& scope, Input value, int64_t num,
                            const StackAttrs& attrs = {});

// `value` cut into num_split equal pieces along `axis`.
std::vector<Output> Split(const Scope& scope, Input axis, Input value, int64_t num_split);
// `value` cut along `axis` into pieces of size_splits' sizes (one may be -1).
std::vector<Output> SplitV(const Scope& scope, Input value, Input size_splits, Input axis,
                           int64_t num_split);

// The block of `input` at `begin` of sizes `size` (-1: to the end).
Output Slice(const Scope& scope, Input input, Input begin, Input size);

struct StridedSliceAttrs {
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t ellipsis_mask = 0;
  int64_t new_axis_mask = 0;
  int64_t shrink_axis_mask = 0;
};
// input[begin:end:strides] with TensorFlow's masks (ops/util/strided_slice.h).
Output StridedSlice(const Scope& scope, Input input, Input begin, Input end, Input strides,
                    const StridedSliceAttrs& attrs = {});
// Zeros of shape `shape` with `dy` where StridedSlice would read.
Output StridedSliceGrad(const Scope& scope, Input shape, Input begin, Input end, Input strides,
                        Input dy, const StridedSliceAttrs& attrs = {});

// `input` padded by paddings ([rank, 2]) with zeros, or with constant_values.
Output Pad(const Scope& scope, Input input, Input paddings);
Output PadV2(const Scope& scope, Input input, Input paddings, Input constant_values);
// `input` repeated multiples[d] times along each dimension d.
Output Tile(const Scope& scope, Input input, Input multiples);

struct GatherV2Attrs {
  int64_t batch_dims = 0;
};
// The slices of `params` along `axis` that `indices` name.
Output GatherV2(const Scope& scope, Input params, Input indices, Input axis,
                const GatherV2Attrs& attrs = {});

struct OneHotAttrs {
  int64_t axis = -1;
};
Output OneHot(const Scope& scope, Input indices, Input depth, Input on_value, Input off_value,
              const OneHotAttrs& attrs = {});
// [start, start + delta, ...) up to limit.
Output Range(const Scope& scope, Input start, Input limit, Input delta);
// Rows of `data` summed by segment_ids into num_segments rows.
Output UnsortedSegmentSum(const Scope& scope, Input data, Input segment_ids, Input num_segments);

// The distinct values of the vector x in first-appearance order (y), and
// for each element of x the position of its value in y (idx).
struct UniqueAttrs {
  DataType out_idx = DT_INT32;
};
struct UniqueOutputs {
  Output y;
  Output idx;
};
UniqueOutputs Unique(const Scope& scope, Input x, const UniqueAttrs& attrs = {});

}  // namespace minitf::ops


#endif  // MINITF_OPS_CC_ARRAY_OPS_H_
