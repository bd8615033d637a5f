// What the remapper's fusions ask of the nodes they merge: that a node's
// output goes to one reader only, that two nodes share a device, that an
// output's shape is known and equal to another's, that no control edge
// touches a node, that it computes in float, and that a node does not
// depend on another (a fused node must not read its own output).
#ifndef MINITF_OPTIMIZER_FUSION_RULES_H_
#define MINITF_OPTIMIZER_FUSION_RULES_H_

#include "runtime/graph.h"

namespace minitf {

// The only node reading `n`'s outputs through data edges, when there is one
// and no node waits for `n` through a control edge; else null.
Node* OnlyConsumer(const Node& n);

// Whether `a` and `b` were asked for, and given, the same device.
bool SameDevice(const Node& a, const Node& b);

// Whether output `a_output` of `a` and output `b_output` of `b` have fully
// known shapes, and the same one.
bool FullyDefinedAndEqual(const Node& a, int a_output, const Node& b, int b_output);

// Whether no control edge comes into `n` (but the source's) or goes out of
// it (but to the sink).
bool NoControlEdges(const Node& n);

// Whether `n`'s attr T is float.
bool TypeIsFloat(const Node& n);

// Whether `target` is `n` or one of its ancestors (through data or control
// edges).
bool DependsOn(const Node* n, const Node* target);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_FUSION_RULES_H_
