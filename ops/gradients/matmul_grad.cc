// The gradients of MatMul, BatchMatMul and BatchMatMulV2: with c = a b,
// da = g b^T and db = a^T g, written with the transpose attrs rather than
// Transpose ops (TensorFlow's math_grad.cc).
#include "ops/cc/array_ops.h"
#include "ops/cc/math_ops.h"
#include "ops/cc/nn_ops.h"
#include "ops/gradients/grad_helpers.h"

namespace minitf {
namespace {

using Grads = std::vector<Output>;

// The gradients of c = op(a) op(b), where op transposes when `ta` / `tb`;
// `matmul(x, y, tx, ty)` builds x, y -> op(x) op(y).
template <typename MatMulFn>
void MatMulGrads(const Output& a, const Output& b, bool ta, bool tb, const Output& g,
                 MatMulFn matmul, Output* da, Output* db) {
  if (!ta && !tb) {
    *da = matmul(g, b, false, true);
    *db = matmul(a, g, true, false);
  } else if (!ta && tb) {
    *da = matmul(g, b, false, false);
    *db = matmul(g, a, true, false);
  } else if (ta && !tb) {
    *da = matmul(b, g, false, true);
    *db = matmul(a, g, false, false);
  } else {
    *da = matmul(b, g, true, true);
    *db = matmul(g, a, true, true);
  }
}

absl::Status MatMulGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  bool ta = false, tb = false;
  if (absl::Status st = op.GetAttr("transpose_a", &ta); !st.ok()) return st;
  if (absl::Status st = op.GetAttr("transpose_b", &tb); !st.ok()) return st;
  Output da, db;
  MatMulGrads(op.input(0), op.input(1), ta, tb, g[0],
              [&](const Output& x, const Output& y, bool tx, bool ty) {
                return ops::MatMul(s, x, y, {.transpose_a = tx, .transpose_b = ty});
              },
              &da, &db);
  *out = {da, db};
  return s.status();
}
REGISTER_GRADIENT_OP("MatMul", MatMulGrad);

template <Output (*BatchMatMulOp)(const Scope&, Input, Input, const ops::BatchMatMulAttrs&)>
absl::Status BatchMatMulGrads(const Scope& s, const Operation& op, const Output& g, Output* da,
                              Output* db) {
  bool adj_x = false, adj_y = false;
  if (absl::Status st = op.GetAttr("adj_x", &adj_x); !st.ok()) return st;
  if (absl::Status st = op.GetAttr("adj_y", &adj_y); !st.ok()) return st;
  MatMulGrads(op.input(0), op.input(1), adj_x, adj_y, g,
              [&](const Output& x, const Output& y, bool tx, bool ty) {
                return BatchMatMulOp(s, x, y, {.adj_x = tx, .adj_y = ty});
              },
              da, db);
  return s.status();
}

absl::Status BatchMatMulGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  Output da, db;
  if (absl::Status st = BatchMatMulGrads<ops::BatchMatMul>(s, op, g[0], &da, &db); !st.ok()) {
    return st;
  }
  *out = {da, db};
  return s.status();
}
REGISTER_GRADIENT_OP("BatchMatMul", BatchMatMulGrad);

// V2 broadcasts the batch dimensions: each gradient is summed over the
// batch dimensions its operand was broadcast along.
absl::Status BatchMatMulV2Grad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  Output da, db;
  if (absl::Status st = BatchMatMulGrads<ops::BatchMatMulV2>(s, op, g[0], &da, &db); !st.ok()) {
    return st;
  }
  auto batch_dims = [&](const Output& t) {
    return ops::StridedSlice(s, ops::Shape(s, t), {0}, {-2}, {1});
  };
  const Output& a = op.input(0);
  const Output& b = op.input(1);
  std::vector<Output> axes = ops::BroadcastGradientArgs(s, batch_dims(a), batch_dims(b));
  if (axes.size() != 2) return s.status();
  *out = {ops::Reshape(s, ops::Sum(s, da, axes[0]), ops::Shape(s, a)),
          ops::Reshape(s, ops::Sum(s, db, axes[1]), ops::Shape(s, b))};
  return s.status();
}
REGISTER_GRADIENT_OP("BatchMatMulV2", BatchMatMulV2Grad);

}  // namespace
}  // namespace minitf
