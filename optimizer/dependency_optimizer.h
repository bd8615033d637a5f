// The nodes that only pass something on, bypassed: TensorFlow's
// RemoveIdentityNodes (GraphOptimizer at L1) and the NoOp part of
// Grappler's DependencyOptimizer.
//
// RemoveIdentityNodes: an Identity whose one input is a value (not a
// variable's reference: Grappler keeps a variable's `read`), on the device
// of its input, and not behind a Switch (that Identity marks a branch of a
// cond) or a _Recv or _Arg, is removed; its consumers read its input, and
// its control successors wait for the input's node instead. Its control
// inputs (gradients' `tuple/control_dependency`) move to each consumer when
// that takes no more edges than before, all are on its device, and no
// consumer is a fetch or a Merge.
//
// RemoveNoOps: a NoOp that only orders nodes (control inputs A, control
// successors B, on one device) becomes the edges from every node of A to
// every node of B, when that takes no more edges than before (|A|·|B| ≤
// |A| + |B|, Grappler's rule). A NoOp that nothing waits for (a step's
// target, as a training step's `train` op) stays: it names what ran.
//
// ConvertUnusedToNoOps (Grappler's "ops that only have control dependencies
// as outputs"): a node whose outputs nobody reads, that only orders others
// through control edges (the gradient of a constant that a gradient tuple's
// group_deps waits for), becomes a NoOp of the same name waiting for what it
// read; RemoveNoOps then bypasses it. Its kernel no longer runs, so an error
// it would have raised is not raised, as in TensorFlow.
//
// RemoveRedundantControlEdges (Grappler's transitive reduction, bounded): a
// control edge a -> n goes when n already waits for a through its other
// inputs (found among the kSearchLimit nodes nearest it, on a path that
// crosses no control-flow node, so deadness travels it as it travels the
// edge).
//
// None touches a node for which `consider` (when given) says false.
// Each returns whether the graph changed.
#ifndef MINITF_OPTIMIZER_DEPENDENCY_OPTIMIZER_H_
#define MINITF_OPTIMIZER_DEPENDENCY_OPTIMIZER_H_

#include <functional>

#include "runtime/graph.h"

namespace minitf {

bool RemoveIdentityNodes(Graph* graph, const std::function<bool(const Node*)>& consider);

bool RemoveNoOps(Graph* graph, const std::function<bool(const Node*)>& consider);

bool ConvertUnusedToNoOps(Graph* graph, const std::function<bool(const Node*)>& consider);

inline constexpr int kSearchLimit = 1024;
bool RemoveRedundantControlEdges(Graph* graph,
                                 const std::function<bool(const Node*)>& consider);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_DEPENDENCY_OPTIMIZER_H_
