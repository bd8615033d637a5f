#include "runtime/control_flow.h"

#include <deque>

#include "absl/strings/str_cat.h"
#include "runtime/node_def_util.h"

namespace minitf {

namespace {

std::string FrameLabel(const std::string& name) {
  return name.empty() ? "the root frame" : absl::StrCat("frame '", name, "'");
}

}  // namespace

bool HasLoops(const Graph& graph) {
  for (const Node* n : graph.op_nodes()) {
    if (n->IsEnter()) return true;
  }
  return false;
}

bool HasLoopOps(const Graph& graph) {
  for (const Node* n : graph.op_nodes()) {
    if (n->IsEnter() || n->IsExit() || n->IsNextIteration()) return true;
  }
  return false;
}

absl::Status BuildControlFlowInfo(const Graph& graph, std::vector<ControlFlowInfo>* info) {
  info->assign(graph.num_node_ids(), ControlFlowInfo{});
  std::vector<bool> visited(graph.num_node_ids(), false);
  // The input that decided each node's frame, for the error message.
  std::vector<const Node*> decided_by(graph.num_node_ids(), nullptr);
  std::deque<const Node*> ready;
  for (const Node* n : graph.op_nodes()) {
    bool has_op_input = false;
    for (const Edge* e : n->in_edges()) has_op_input |= e->src()->IsOp();
    if (!has_op_input) {
      visited[n->id()] = true;
      ready.push_back(n);
    }
  }
  while (!ready.empty()) {
    const Node* src = ready.front();
    ready.pop_front();
    const ControlFlowInfo& src_info = (*info)[src->id()];
    // The frame src's consumers run in.
    ControlFlowInfo out = src_info;
    if (src->IsEnter()) {
      std::string name;
      if (absl::Status s = GetNodeAttr(src->def(), "frame_name", &name); !s.ok()) return s;
      if (name.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Enter node '", src->name(), "' has an empty frame_name"));
      }
      out.frame = src;
      out.parent_frame = src_info.frame;
      out.frame_name = std::move(name);
    } else if (src->IsExit()) {
      if (src_info.frame == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Exit node '", src->name(), "' is not inside a while loop (it runs in the root "
            "frame); an Exit must follow a Switch of its loop"));
      }
      // `parent` is the Enter that opened the enclosing frame: that frame
      // is the one it opens (its frame_name), inside the one it runs in.
      const Node* parent = src_info.parent_frame;
      out.frame = parent;
      out.parent_frame = parent == nullptr ? nullptr : (*info)[parent->id()].frame;
      out.frame_name.clear();
      if (parent != nullptr) {
        if (absl::Status s = GetNodeAttr(parent->def(), "frame_name", &out.frame_name); !s.ok()) {
          return s;
        }
      }
    }
    for (const Edge* e : src->out_edges()) {
      const Node* dst = e->dst();
      if (!dst->IsOp()) continue;
      if (!visited[dst->id()]) {
        visited[dst->id()] = true;
        (*info)[dst->id()] = out;
        decided_by[dst->id()] = src;
        ready.push_back(dst);
        continue;
      }
      const ControlFlowInfo& seen = (*info)[dst->id()];
      if (seen.frame_name != out.frame_name) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Node '", dst->name(), "' (op '", dst->type_string(),
            "') has inputs from different frames: input '", decided_by[dst->id()]->name(),
            "' is in ", FrameLabel(seen.frame_name), ", input '", src->name(), "' is in ",
            FrameLabel(out.frame_name)));
      }
    }
  }
  for (const Node* n : graph.op_nodes()) {
    if (n->IsNextIteration() && (*info)[n->id()].frame == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "NextIteration node '", n->name(), "' is not inside a while loop"));
    }
  }
  return absl::OkStatus();
}

}  // namespace minitf
