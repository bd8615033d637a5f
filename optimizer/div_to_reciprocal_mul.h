// Grappler's ReduceDivToReciprocalMul (a rewrite of its constant folding): a
// floating-point Div or RealDiv whose divisor is a Const becomes a Mul by a
// new Const of the divisor's reciprocals, keeping its name:
//
//   RealDiv(x, c) -> Mul(x, 1 / c)      Div(x, c) -> Mul(x, 1 / c)
//
// The reciprocals are computed in the divisor's type and held by
// "<scope>/ConstantFolding/<name>_recip" (made unique) on the node's device;
// the divisor's Const goes when nothing else reads it. A product by the
// reciprocal may differ from the quotient in the last bit, as it does in
// TensorFlow with Grappler on (BERT's training graph divides the gradients
// of its 51 Means so). Left alone: types other than float and double (an
// integer Div truncates), a divisor that is not a Const, a device without a
// Mul kernel for the type, nodes MayChange refuses (node_rules.h) and those
// for which `consider` says false.
//
//   bool changed = ReduceDivToReciprocalMul(graph, nullptr);
#ifndef MINITF_OPTIMIZER_DIV_TO_RECIPROCAL_MUL_H_
#define MINITF_OPTIMIZER_DIV_TO_RECIPROCAL_MUL_H_

#include <functional>

#include "runtime/graph.h"

namespace minitf {

bool ReduceDivToReciprocalMul(Graph* graph, const std::function<bool(const Node*)>& consider);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_DIV_TO_RECIPROCAL_MUL_H_
