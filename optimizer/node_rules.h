// What every pass asks of a node before it changes it: whether it carries a
// step's feeds, fetches or transfers, whether it holds a reference, whether
// its device has a kernel for what replaces it; the data edge into an
// input; the replacement of a node by another of its name, and the removal
// of what a pass left unread.
#ifndef MINITF_OPTIMIZER_NODE_RULES_H_
#define MINITF_OPTIMIZER_NODE_RULES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
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

// The value of data input i when a Const feeds it, else null.
const Tensor* ConstInput(const Node& n, int i);
// The values of data input i when a Const of int32 or int64 values, one
// dimension, feeds it (a permutation, a shape); empty otherwise.
std::vector<int64_t> ConstIntsInput(const Node& n, int i);

// "CPU" from ".../device:CPU:0"; "" when unplaced.
std::string DeviceTypeOf(const std::string& device);

// Whether `device` (a full device name) has a kernel for `def`: one for any
// platform, or on a GPU one for SimGPU and, in a build with CUDA's kernels,
// one for CUDA; false when the name is empty (an unplaced graph).
bool HasKernel(const NodeDef& def, const std::string& device);

// The name Grappler gives a node its optimizer adds for `name`:
// "<scope>/<optimizer>/<prefix><base><suffix>", scope and base being the
// parts of `name` before and after its last '/', made unique in `graph` with
// "_1", "_2", ... ("a/b" -> "a/ConstantFolding/b_recip").
std::string OptimizedNodeName(const Graph& graph, const std::string& name,
                              absl::string_view optimizer, absl::string_view prefix,
                              absl::string_view suffix);

// An output of a node, as a replacement's input.
struct OutputRef {
  Node* node;
  int output;
};

// An edge out of a node, kept while the node is replaced: the reader, the
// output it reads (kControlSlot for a control edge) and at which input.
struct Reader {
  Node* dst;
  int output;
  int input;
};

// What reads `n`, the sink aside.
std::vector<Reader> ReadersOf(const Node& n);

// Makes each of `readers` read `node` instead: the same output, or a control
// edge.
void Reconnect(Graph* graph, Node* node, absl::Span<const Reader> readers);

// Replaces `n` by a node made from `def`, which takes n's name, requested
// and assigned device and output shapes, reads `inputs` in order, and has
// n's readers (data and control). It waits through control edges for n's
// control inputs and for the nodes of the data inputs it no longer reads,
// except nodes without inputs of their own (Consts), so it stays in their
// loop frame and is dead when they are. The dropped inputs' nodes nothing
// reads any more are removed (RemoveIfUnread).
absl::StatusOr<Node*> ReplaceNode(Graph* graph, Node* n, NodeDef def,
                                  absl::Span<const OutputRef> inputs);

// Removes `n` when MayChange allows and nothing reads it (no out edges but
// the sink's), then the nodes that fed it, in turn, on the same terms.
void RemoveIfUnread(Graph* graph, Node* n);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_NODE_RULES_H_
