// The simplifications of Grappler's arithmetic optimizer and constant
// folding that these graphs need: a node that passes its first input on
// unchanged becomes an Identity (the dependency optimizer then bypasses it).
//
//   - StopGradient, PreventGradient and Snapshot (identities at run time);
//   - Cast to the type it already has;
//   - Transpose by the identity permutation, and a Transpose of a Transpose
//     whose permutations cancel (it reads the inner one's input);
//   - Reshape, BroadcastTo, Tile, Pad, MirrorPad, Slice, Squeeze and the
//     reductions (Sum, Mean, Prod, Max, Min, All, Any) whose output has the
//     fully known shape of their input: only that can hold the same elements
//     in the same order.
//
// The Identity keeps the node's name, device and control inputs, and waits
// for the non-constant nodes that fed the inputs it drops (so it stays in
// their loop frame and is dead when they are). A node nothing reads any
// more after that (the dropped inputs' Consts) is removed. Stateful nodes,
// references and nodes for which `consider` says false are left alone.
//
//   bool changed = SimplifyArithmetic(graph, nullptr);
#ifndef MINITF_OPTIMIZER_ARITHMETIC_OPTIMIZER_H_
#define MINITF_OPTIMIZER_ARITHMETIC_OPTIMIZER_H_

#include <functional>

#include "runtime/graph.h"

namespace minitf {

bool SimplifyArithmetic(Graph* graph, const std::function<bool(const Node*)>& consider);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_ARITHMETIC_OPTIMIZER_H_
