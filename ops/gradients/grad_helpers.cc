#include "ops/gradients/grad_helpers.h"

#include "ops/cc/array_ops.h"
#include "ops/cc/math_ops.h"

namespace minitf::grad {

void ReduceBroadcast(const Scope& scope, const Output& x, const Output& y, const Output& gx,
                     const Output& gy, std::vector<Output>* grad_outputs) {
  auto sx = ops::Shape(scope, x);
  auto sy = ops::Shape(scope, y);
  std::vector<Output> axes = ops::BroadcastGradientArgs(scope, sx, sy);
  if (axes.size() != 2) return;  // The scope holds the error.
  grad_outputs->push_back(gx.valid() ? ops::Reshape(scope, ops::Sum(scope, gx, axes[0]), sx)
                                     : NoGradient());
  grad_outputs->push_back(gy.valid() ? ops::Reshape(scope, ops::Sum(scope, gy, axes[1]), sy)
                                     : NoGradient());
}

Output ReduceTo(const Scope& scope, const Output& grad, const Output& x) {
  auto sx = ops::Shape(scope, x);
  std::vector<Output> axes = ops::BroadcastGradientArgs(scope, sx, ops::Shape(scope, grad));
  if (axes.size() != 2) return Output();  // The scope holds the error.
  return ops::Reshape(scope, ops::Sum(scope, grad, axes[0]), sx);
}

Output ReducedShape(const Scope& scope, const Output& input_shape, const Input& axes) {
  // kept[i] = 1 if i is one of the axes (taken modulo the rank), else input_shape[i].
  auto rank = ops::Size(scope, input_shape);
  auto flat_axes = ops::Reshape(scope, ops::Cast(scope, axes, DT_INT32), {1, -1});
  auto wrapped = ops::FloorMod(scope, ops::Add(scope, flat_axes, rank), rank);
  auto dims = ops::Reshape(scope, ops::Range(scope, 0, rank, 1), {-1, 1});
  auto hits = ops::Sum(scope, ops::Cast(scope, ops::Equal(scope, dims, wrapped), DT_INT32), {1});
  return ops::SelectV2(scope, ops::Greater(scope, hits, 0), 1, input_shape);
}

std::vector<Output> WithAttrsOf(const Scope& scope, const char* op_type,
                                const std::vector<Input>& inputs, const Operation& from,
                                std::initializer_list<const char*> attrs) {
  OpBuilder builder(scope, op_type);
  for (const Input& in : inputs) builder.Input(in);
  for (const char* name : attrs) {
    auto it = from.node_def().attr.find(name);
    if (it != from.node_def().attr.end()) builder.Attr(name, it->second);
  }
  return builder.Finalize();
}

bool IsZeros(const Scope& scope, const Output& grad) {
  const NodeDef* def = scope.FindNode(grad.node_name());
  return def != nullptr && def->op == "ZerosLike";
}

}  // namespace minitf::grad
