// Grappler's ConvertPow (a stage of its arithmetic optimizer): a Pow whose
// exponent is a Const holding one value throughout becomes the cheaper op
// with the same result, keeping its name:
//
//   x^2 -> Square(x)            x^0.5  -> Sqrt(x)
//   x^3 -> Mul(x, Square(x))    x^-0.5 -> Rsqrt(x)
//          (on the CPU only)    x^-1   -> Reciprocal(x)
//   x^1 -> Identity(x)          x^0    -> OnesLike(x)
//
// The new node waits for the exponent's node unless it is a Const without
// inputs (node_rules.h, ReplaceNode), and that Const goes when nothing else
// reads it. x^3's Square is a new node, "<scope>/ArithmeticOptimizer/
// ConvertPow_<name>_inner" (CSE merges it with an equal Square). The
// products are the ones the Pow kernel makes for whole exponents, so the
// values are the same bits.
//
// Deliberately stricter than Grappler, which rewrites x^2 whatever the
// shapes: a Pow is left alone unless its exponent is a scalar or x and the
// output have the same fully known shape (an exponent that broadcasts x to
// a larger shape must keep doing so); x^0 becomes OnesLike(x) where Grappler
// makes a Const of ones (OnesLike holds no constant of the output's size in
// the graph). A Pow is also left alone when the replacement has no kernel
// for its type on its device, and when `consider` says false.
//
//   bool changed = ConvertPow(graph, nullptr);
#ifndef MINITF_OPTIMIZER_CONVERT_POW_H_
#define MINITF_OPTIMIZER_CONVERT_POW_H_

#include <functional>

#include "runtime/graph.h"

namespace minitf {

bool ConvertPow(Graph* graph, const std::function<bool(const Node*)>& consider);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_CONVERT_POW_H_
