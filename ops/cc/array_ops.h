// Graph-builder functions for the array ops: Const, Placeholder, Identity, NoOp.
//
//   auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {-1, 3}});
//   auto c = ops::Const(root, Tensor::FromVector<float>({1, 2, 3}));
//   auto i = ops::Identity(root, x);
#ifndef MINITF_OPS_CC_ARRAY_OPS_H_
#define MINITF_OPS_CC_ARRAY_OPS_H_

#include "runtime/scope.h"

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

}  // namespace minitf::ops

#endif  // MINITF_OPS_CC_ARRAY_OPS_H_
