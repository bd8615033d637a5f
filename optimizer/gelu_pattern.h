// Recognizes tf.nn.gelu written out in elementwise ops, as the remapper's
// MatMul + BiasAdd + GeLU fusion needs (Grappler's FindMatMulBiasAddAndGelu).
// TensorFlow's Python writes GELU(x) as
//   approximate: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
//   exact:       0.5 * x * erfc(-x * sqrt(1 / 2))
// and its optimizers then rearrange the nodes (ConvertPow makes x^3 a Mul
// and a Square; operands of commutative ops swap). Grappler lists the
// arrangements it knows and compares each constant to within 1e-2; here the
// nodes that read x, directly or through each other, are collected, and
// their last one is evaluated as a function of x at a handful of points and
// compared with each GELU to within 1e-5 (relative), so any arrangement
// of the same arithmetic is found and nothing else is.
//
//   std::optional<GeluPattern> gelu = MatchGelu(*bias_add);
//   if (gelu) ... gelu->output, gelu->activation ("GeluApproximate"), ...
#ifndef MINITF_OPTIMIZER_GELU_PATTERN_H_
#define MINITF_OPTIMIZER_GELU_PATTERN_H_

#include <optional>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace minitf {

struct GeluPattern {
  // Every node of the GELU, `output` among them; each reads only x's
  // output 0, scalar Consts and the others.
  std::vector<Node*> nodes;
  // The node whose value is GELU(x); the only one read from outside.
  Node* output = nullptr;
  // fused_ops' name for it: "GeluApproximate" or "GeluExact".
  std::string activation;
  // The scalar Consts the nodes read (left for RemoveIfUnread).
  std::vector<Node*> constants;
};

// The GELU of `x`'s output 0, when x's every reader belongs to one: at most
// 16 elementwise nodes (Mul, Add, AddV2, Sub, RealDiv, Neg, Square, Pow,
// Tanh, Erf, Erfc) that MayChange allows, on x's device, with no control
// edges in or out, reading nothing but x, each other and scalar float or
// double Consts. Otherwise nullopt.
std::optional<GeluPattern> MatchGelu(const Node& x);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_GELU_PATTERN_H_
