// Control loops: what lets a while loop span devices (TensorFlow's
// AddControlFlow in graph_partition.cc).
//
// A device's partition holds only its own nodes of a loop. When a tensor
// crosses devices inside a loop's frame, the receiving device must run its
// _Recv once per iteration, in that iteration's frame, but it may hold no
// Merge or NextIteration of the loop to drive it. AddControlLoops gives such
// a device a loop of its own per frame: Enter -> Merge -> Switch (on the
// loop's LoopCond, received from the device that computes it) ->
// NextIteration -> back to the Merge. Every node that receives a tensor
// inside the frame on that device then waits on the control loop's Merge,
// and the partitioner moves that wait onto the _Recv it creates, so the
// _Recv runs once per iteration (and after the loop, not at all).
//
// Run on a placed graph, before Partition(). Graphs without loops, and loops
// on one device, are left as they are.
#ifndef MINITF_SESSION_CONTROL_LOOPS_H_
#define MINITF_SESSION_CONTROL_LOOPS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/graph.h"

namespace minitf {

// Adds the control loops `graph` needs. An error names the loop that has
// no LoopCond.
absl::Status AddControlLoops(Graph* graph);

// True for the Merge of a control loop AddControlLoops added.
bool IsControlLoopMerge(const Node& node);

}  // namespace minitf

#endif  // MINITF_SESSION_CONTROL_LOOPS_H_
