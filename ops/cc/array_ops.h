// Graph-builder functions for the array ops: Const, Placeholder, Identity,
// NoOp, the shape ops Reshape, Shape, Fill, ZerosLike, OnesLike, and
// Transpose.
//
//   auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {-1, 3}});
//   auto c = ops::Const(root, Tensor::FromVector<float>({1, 2, 3}));
//   auto i = ops::Identity(root, x);
//   auto r = ops::Reshape(root, x, {3, -1});       // -1: inferred
//   auto z = ops::Fill(root, ops::Shape(root, x), 0.0f);
//   auto t = ops::Transpose(root, x, {1, 0});     // [3, ?]
#ifndef MINITF_OPS_CC_ARRAY_OPS_H_
#define MINITF_OPS_CC_ARRAY_OPS_H_

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

}  // namespace minitf::ops

#endif  // MINITF_OPS_CC_ARRAY_OPS_H_
