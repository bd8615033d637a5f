// Common subexpression elimination, TensorFlow's OptimizeCSE: nodes that
// compute the same thing become one. Two nodes are equal when they run the
// same op on the same device with the same attrs (compared exactly: a float
// by its bits, a tensor by its dtype, shape and bytes), the same data inputs
// in the same order (node and output) and the same set of control inputs.
// Nodes are visited in topological order, so a merge makes the consumers of
// both nodes equal in turn and they merge in the same walk. The node kept is
// the first in that order; the other's consumers move to it (data edges to
// the same output, control edges as control edges) and it is removed.
//
// Never merged: stateful ops (a random op, a variable, a queue), nodes with
// a reference input or output, control-flow nodes (Switch, Merge, Enter,
// Exit, NextIteration, LoopCond), and the nodes that carry a step's feeds,
// fetches and transfers (_Arg, _Retval, _Send, _Recv, _HostSend,
// _HostRecv) or stand for an unfed input (Placeholder: its error names it);
// nor any node for which `consider` (when given) says false. Unlike
// TensorFlow's, the inputs of commutative ops are not sorted: Add(x, y) and
// Add(y, x) stay two nodes.
//
//   bool changed = OptimizeCSE(graph, nullptr);
#ifndef MINITF_OPTIMIZER_OPTIMIZER_CSE_H_
#define MINITF_OPTIMIZER_OPTIMIZER_CSE_H_

#include <functional>

#include "runtime/graph.h"

namespace minitf {

// Returns whether any node was merged.
bool OptimizeCSE(Graph* graph, const std::function<bool(const Node*)>& consider);

// Whether a and b hold the same value: the same kind and, for floats and
// float lists, the same bits; tensors of one dtype and shape with the same
// elements (bytes, or strings).
bool SameAttrValue(const AttrValue& a, const AttrValue& b);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_OPTIMIZER_CSE_H_
