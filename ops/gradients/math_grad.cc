// The gradients of the elementwise math ops, AddN, Cast and Select.
// TensorFlow's python/ops/math_grad.py and cc/gradients/math_grad.cc hold
// the same formulas. x, y are op's inputs, z its output, g = dL/dz.
#include <cmath>

#include "ops/cc/array_ops.h"
#include "ops/cc/math_ops.h"
#include "ops/gradients/grad_helpers.h"

namespace minitf {
namespace {

using Grads = std::vector<Output>;

absl::Status AddGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  grad::ReduceBroadcast(s, op.input(0), op.input(1), g[0], g[0], out);
  return s.status();
}
REGISTER_GRADIENT_OP("Add", AddGrad);
REGISTER_GRADIENT_OP("AddV2", AddGrad);

absl::Status SubGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  grad::ReduceBroadcast(s, op.input(0), op.input(1), g[0], ops::Neg(s, g[0]), out);
  return s.status();
}
REGISTER_GRADIENT_OP("Sub", SubGrad);

absl::Status MulGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  grad::ReduceBroadcast(s, x, y, ops::Mul(s, g[0], y), ops::Mul(s, x, g[0]), out);
  return s.status();
}
REGISTER_GRADIENT_OP("Mul", MulGrad);

// z = x / y: dx = g / y, dy = -g x / y^2.
absl::Status DivGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  auto gx = ops::Div(s, g[0], y);
  auto gy = ops::Mul(s, g[0], ops::Div(s, ops::Div(s, ops::Neg(s, x), y), y));
  grad::ReduceBroadcast(s, x, y, gx, gy, out);
  return s.status();
}
REGISTER_GRADIENT_OP("Div", DivGrad);
REGISTER_GRADIENT_OP("RealDiv", DivGrad);

// The gradient goes to x where `x_wins` (a tie included), else to y.
absl::Status MinMaxGrad(const Scope& s, const Operation& op, const Output& x_wins,
                        const Output& g, Grads* out) {
  auto zeros = ops::ZerosLike(s, g);
  grad::ReduceBroadcast(s, op.input(0), op.input(1), ops::SelectV2(s, x_wins, g, zeros),
                        ops::SelectV2(s, x_wins, zeros, g), out);
  return s.status();
}

absl::Status MaximumGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  return MinMaxGrad(s, op, ops::GreaterEqual(s, op.input(0), op.input(1)), g[0], out);
}
REGISTER_GRADIENT_OP("Maximum", MaximumGrad);

absl::Status MinimumGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  return MinMaxGrad(s, op, ops::LessEqual(s, op.input(0), op.input(1)), g[0], out);
}
REGISTER_GRADIENT_OP("Minimum", MinimumGrad);

// z = x^y: dx = g y x^(y-1); dy = g z log(x), taken as 0 where x <= 0.
absl::Status PowGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  auto gx = ops::Mul(s, g[0], ops::Mul(s, y, ops::Pow(s, x, ops::Sub(s, y, 1.0f))));
  auto log_x = ops::SelectV2(s, ops::Greater(s, x, 0.0f), ops::Log(s, x), ops::ZerosLike(s, x));
  auto gy = ops::Mul(s, g[0], ops::Mul(s, op.output(0), log_x));
  grad::ReduceBroadcast(s, x, y, gx, gy, out);
  return s.status();
}
REGISTER_GRADIENT_OP("Pow", PowGrad);

// z = (x - y)^2: dx = 2 g (x - y), dy = -dx.
absl::Status SquaredDifferenceGrad(const Scope& s, const Operation& op, const Grads& g,
                                   Grads* out) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  auto gx = ops::Mul(s, g[0], ops::Mul(s, ops::Sub(s, x, y), 2.0f));
  grad::ReduceBroadcast(s, x, y, gx, ops::Neg(s, gx), out);
  return s.status();
}
REGISTER_GRADIENT_OP("SquaredDifference", SquaredDifferenceGrad);

// z = x - floor(x / y) y: dx = g, dy = -g floor(x / y).
absl::Status FloorModGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  auto gy = ops::Mul(s, ops::Neg(s, g[0]), ops::FloorDiv(s, x, y));
  grad::ReduceBroadcast(s, x, y, g[0], gy, out);
  return s.status();
}
REGISTER_GRADIENT_OP("FloorMod", FloorModGrad);

// Elementwise unary ops: dx from x, z and g.
absl::Status NegGrad(const Scope& s, const Operation&, const Grads& g, Grads* out) {
  out->push_back(ops::Neg(s, g[0]));
  return s.status();
}
REGISTER_GRADIENT_OP("Neg", NegGrad);

absl::Status SquareGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Mul(s, g[0], ops::Mul(s, op.input(0), 2.0f)));
  return s.status();
}
REGISTER_GRADIENT_OP("Square", SquareGrad);

absl::Status ExpGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Mul(s, g[0], op.output(0)));
  return s.status();
}
REGISTER_GRADIENT_OP("Exp", ExpGrad);

absl::Status LogGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Mul(s, g[0], ops::Reciprocal(s, op.input(0))));
  return s.status();
}
REGISTER_GRADIENT_OP("Log", LogGrad);

absl::Status AbsGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Mul(s, g[0], ops::Sign(s, op.input(0))));
  return s.status();
}
REGISTER_GRADIENT_OP("Abs", AbsGrad);

// Sign is flat wherever it has a derivative.
absl::Status SignGrad(const Scope& s, const Operation& op, const Grads&, Grads* out) {
  out->push_back(ops::ZerosLike(s, op.input(0)));
  return s.status();
}
REGISTER_GRADIENT_OP("Sign", SignGrad);

// erf'(x) = 2/sqrt(pi) exp(-x^2); erfc' = -erf'.
absl::Status ErfGradWithSign(const Scope& s, const Operation& op, const Output& g, float sign,
                             Grads* out) {
  const Output& x = op.input(0);
  auto slope = ops::Mul(s, ops::Exp(s, ops::Neg(s, ops::Square(s, x))),
                        static_cast<float>(sign * 2.0 / std::sqrt(M_PI)));
  out->push_back(ops::Mul(s, g, slope));
  return s.status();
}
absl::Status ErfGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  return ErfGradWithSign(s, op, g[0], 1.0f, out);
}
absl::Status ErfcGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  return ErfGradWithSign(s, op, g[0], -1.0f, out);
}
REGISTER_GRADIENT_OP("Erf", ErfGrad);
REGISTER_GRADIENT_OP("Erfc", ErfcGrad);

// Ops whose gradient has an op of its own, computed from z and g.
template <Output (*GradOp)(const Scope&, Input, Input)>
absl::Status FromOutputGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(GradOp(s, op.output(0), g[0]));
  return s.status();
}
REGISTER_GRADIENT_OP("Sqrt", FromOutputGrad<ops::SqrtGrad>);
REGISTER_GRADIENT_OP("Rsqrt", FromOutputGrad<ops::RsqrtGrad>);
REGISTER_GRADIENT_OP("Reciprocal", FromOutputGrad<ops::ReciprocalGrad>);
REGISTER_GRADIENT_OP("Sigmoid", FromOutputGrad<ops::SigmoidGrad>);
REGISTER_GRADIENT_OP("Tanh", FromOutputGrad<ops::TanhGrad>);

// The gradient ops themselves, h(y, dy) = dy * f'(y): d/d(dy) is the same
// op on g; d/dy = g dy f''(y) with f'' from the table below.
//   SigmoidGrad: dy y (1 - y)  -> g dy (1 - 2y)
//   TanhGrad:    dy (1 - y^2)  -> g dy (-2y)
//   RsqrtGrad:   dy (-y^3 / 2) -> g dy (-3 y^2 / 2)
//   SqrtGrad:    dy / (2y)     -> g dy (-1 / (2 y^2))
//   ReciprocalGrad: -dy y^2    -> g dy (-2y)
template <Output (*GradOp)(const Scope&, Input, Input)>
absl::Status GradOfGrad(const Scope& s, const Operation& op, const Output& slope_of_y,
                        const Grads& g, Grads* out) {
  const Output& dy = op.input(1);
  out->push_back(ops::Mul(s, ops::Mul(s, g[0], dy), slope_of_y));
  out->push_back(GradOp(s, op.input(0), g[0]));
  return s.status();
}
absl::Status SigmoidGradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto slope = ops::Sub(s, 1.0f, ops::Mul(s, op.input(0), 2.0f));
  return GradOfGrad<ops::SigmoidGrad>(s, op, slope, g, out);
}
absl::Status TanhGradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  return GradOfGrad<ops::TanhGrad>(s, op, ops::Mul(s, op.input(0), -2.0f), g, out);
}
absl::Status RsqrtGradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto slope = ops::Mul(s, ops::Square(s, op.input(0)), -1.5f);
  return GradOfGrad<ops::RsqrtGrad>(s, op, slope, g, out);
}
absl::Status SqrtGradGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto slope = ops::Div(s, -0.5f, ops::Square(s, op.input(0)));
  return GradOfGrad<ops::SqrtGrad>(s, op, slope, g, out);
}
absl::Status ReciprocalGradGrad(const Scope& s, const Operation& op, const Grads& g,
                                Grads* out) {
  return GradOfGrad<ops::ReciprocalGrad>(s, op, ops::Mul(s, op.input(0), -2.0f), g, out);
}
REGISTER_GRADIENT_OP("SigmoidGrad", SigmoidGradGrad);
REGISTER_GRADIENT_OP("TanhGrad", TanhGradGrad);
REGISTER_GRADIENT_OP("RsqrtGrad", RsqrtGradGrad);
REGISTER_GRADIENT_OP("SqrtGrad", SqrtGradGrad);
REGISTER_GRADIENT_OP("ReciprocalGrad", ReciprocalGradGrad);

absl::Status AddNGrad(const Scope&, const Operation& op, const Grads& g, Grads* out) {
  out->assign(op.num_inputs(), g[0]);
  return absl::OkStatus();
}
REGISTER_GRADIENT_OP("AddN", AddNGrad);

// Between floating-point types the gradient is cast back; otherwise none.
absl::Status CastGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  DataType src = DT_INVALID, dst = DT_INVALID;
  if (absl::Status st = op.GetAttr("SrcT", &src); !st.ok()) return st;
  if (absl::Status st = op.GetAttr("DstT", &dst); !st.ok()) return st;
  out->push_back(DataTypeIsFloating(src) && DataTypeIsFloating(dst) ? ops::Cast(s, g[0], src)
                                                                    : NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("Cast", CastGrad);

// Select (v1): the condition has t's shape or picks rows, so g splits
// without broadcasting.
absl::Status SelectGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto zeros = ops::ZerosLike(s, g[0]);
  const Output& c = op.input(0);
  *out = {NoGradient(), ops::Select(s, c, g[0], zeros), ops::Select(s, c, zeros, g[0])};
  return s.status();
}
REGISTER_GRADIENT_OP("Select", SelectGrad);

// SelectV2 broadcasts all three: each branch's share is summed back to its shape.
absl::Status SelectV2Grad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  auto zeros = ops::ZerosLike(s, g[0]);
  const Output& c = op.input(0);
  *out = {NoGradient(), grad::ReduceTo(s, ops::SelectV2(s, c, g[0], zeros), op.input(1)),
          grad::ReduceTo(s, ops::SelectV2(s, c, zeros, g[0]), op.input(2))};
  return s.status();
}
REGISTER_GRADIENT_OP("SelectV2", SelectV2Grad);

// Results that are integers or booleans, or flat in their inputs.
REGISTER_NO_GRADIENT_OP("FloorDiv");
REGISTER_NO_GRADIENT_OP("Less");
REGISTER_NO_GRADIENT_OP("LessEqual");
REGISTER_NO_GRADIENT_OP("Greater");
REGISTER_NO_GRADIENT_OP("GreaterEqual");
REGISTER_NO_GRADIENT_OP("Equal");
REGISTER_NO_GRADIENT_OP("NotEqual");
REGISTER_NO_GRADIENT_OP("LogicalAnd");
REGISTER_NO_GRADIENT_OP("LogicalOr");
REGISTER_NO_GRADIENT_OP("LogicalNot");
REGISTER_NO_GRADIENT_OP("ArgMax");

}  // namespace
}  // namespace minitf
