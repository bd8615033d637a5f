// Constant folding, TensorFlow's ConstantFold (constant_folding.h): a node
// whose value is known before the graph runs is computed once, on the host,
// and its consumers read a Const instead.
//
// A value is known when every data input comes from a Const or from another
// foldable node, or, for Shape, ShapeN, Size and Rank, when what they report
// of their input is fully known from shape inference. Never folded: stateful
// ops, control flow, the nodes of feeds, fetches and transfers (_Arg,
// _Retval, _Send, _Recv, _HostSend, _HostRecv), Placeholder, nodes with a
// reference input or output, ops without a synchronous CPU kernel, nodes
// whose output is known to be larger than the size limit, and any node for
// which `consider` (when given) says false. A fed tensor never reaches a
// fold: DirectSession rewrites feeds to _Arg or _Recv before optimizing.
//
// Each output of a folded node that a node outside the folded set reads
// becomes a Const on the original's device, unless it is larger than
// max_constant_size_in_bytes. The Const takes control edges from the
// non-constant nodes the value depended on through control edges (and, for a
// folded Shape, from the node whose shape it reports), so it runs in the same
// loop frame and iteration and is dead when they are. A folded node nothing
// reads any more is removed; when it had one replaced output the Const takes
// its name, so a fetched node keeps its name. A node whose kernel fails is
// left as it was (it fails again when the graph runs, with its own error),
// and so is everything after it.
//
//   ConstantFoldingOptions options;
//   MINITF_ASSIGN_OR_RETURN(bool changed, ConstantFold(options, host_cpu, graph));
#ifndef MINITF_OPTIMIZER_CONSTANT_FOLDING_H_
#define MINITF_OPTIMIZER_CONSTANT_FOLDING_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "device/device.h"
#include "runtime/graph.h"

namespace minitf {

struct ConstantFoldingOptions {
  // When set, a node is folded only where this says true.
  std::function<bool(const Node*)> consider;
  // TensorFlow's default: a Const larger than this is not made.
  int64_t max_constant_size_in_bytes = 10 * 1024 * 1024;
};

// Returns whether the graph changed. `host` is a CPU device the kernels run
// on (not owned). Errors only for a graph that cannot be ordered.
absl::StatusOr<bool> ConstantFold(const ConstantFoldingOptions& options, Device* host,
                                  Graph* graph);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_CONSTANT_FOLDING_H_
