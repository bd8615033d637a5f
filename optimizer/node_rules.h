// What every pass asks of a node before it changes it: whether it carries a
// step's feeds, fetches or transfers, whether it holds a reference; and the
// removal of what a pass left unread; the data edge into an input.
#ifndef MINITF_OPTIMIZER_NODE_RULES_H_
#define MINITF_OPTIMIZER_NODE_RULES_H_

#include "runtime/graph.h"

namespace minitf {

// The nodes of a step's feeds, fetches and transfers (_Arg, _Retval, _Send,
// _Recv, _HostSend, _HostRecv), and Placeholder (an unfed one fails the step
// naming itself, and must still).
bool IsFeedFetchOrTransfer(const Node& n);

// Whether any input or output of `n` is a reference (a variable's).
bool HasRefInputOrOutput(const Node& n);

// Whether a pass may replace or remove `n`: an op that is not stateful,
// not control flow, not a feed, fetch or transfer, without references.
bool MayChange(const Node& n);

// The edge into data input i of `n`, or null when there is none.
const Edge* DataInput(const Node& n, int i);

// Removes `n` when MayChange allows and nothing reads it (no out edges but
// the sink's), then the nodes that fed it, in turn, on the same terms.
void RemoveIfUnread(Graph* graph, Node* n);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_NODE_RULES_H_
