// Control-flow info: which while-loop frame each node of a graph runs in
// (TensorFlow's BuildControlFlowInfo).
//
// Nodes outside any loop are in the root frame, named "". An Enter node runs
// in the frame it reads from and opens the frame named by its `frame_name`
// attr: its consumers run there. An Exit runs in the loop's frame and hands
// its output to the enclosing frame. Every other node runs in the frame of
// its inputs, which must all agree.
//
//   std::vector<ControlFlowInfo> info;
//   MINITF_RETURN_IF_ERROR(BuildControlFlowInfo(graph, &info));
//   info[node->id()].frame_name;   // "" or "while/while_context"
#ifndef MINITF_RUNTIME_CONTROL_FLOW_H_
#define MINITF_RUNTIME_CONTROL_FLOW_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/graph.h"

namespace minitf {

struct ControlFlowInfo {
  // The Enter node that opened the frame the node runs in; null in the root
  // frame.
  const Node* frame = nullptr;
  // The same for the enclosing frame; null when that is the root frame.
  const Node* parent_frame = nullptr;
  std::string frame_name;  // "" for the root frame.
};

// Fills `info`, indexed by node id, for every op node of `graph`. An
// InvalidArgument names the node whose inputs come from different frames, or
// an Exit or NextIteration outside any loop.
absl::Status BuildControlFlowInfo(const Graph& graph, std::vector<ControlFlowInfo>* info);

// True when `graph` has while loops (an Enter node).
bool HasLoops(const Graph& graph);
// True when `graph` has any while-loop op (Enter, Exit, NextIteration):
// then BuildControlFlowInfo has something to check.
bool HasLoopOps(const Graph& graph);

}  // namespace minitf

#endif  // MINITF_RUNTIME_CONTROL_FLOW_H_
