#include "session/control_loops.h"

#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "platform/status_macros.h"
#include "runtime/control_flow.h"
#include "runtime/node_def_util.h"

namespace minitf {

namespace {

constexpr absl::string_view kPrefix = "_cloop/";

// The name of the frame the Enter node `enter` opens; "" for none.
std::string FrameOpenedBy(const Node* enter) {
  std::string name;
  if (enter != nullptr) (void)GetNodeAttr(enter->def(), "frame_name", &name);
  return name;
}

// The frame a node's outputs belong to: an Enter's loop, an Exit's parent,
// else its own.
std::string OutputFrame(const Node& n, const std::vector<ControlFlowInfo>& info) {
  if (n.IsEnter()) return FrameOpenedBy(&n);
  const ControlFlowInfo& i = info[n.id()];
  if (n.IsExit()) return FrameOpenedBy(i.parent_frame);
  return i.frame_name;
}

class ControlLoopBuilder {
 public:
  explicit ControlLoopBuilder(Graph* graph) : graph_(graph) {}

  absl::Status Run();

 private:
  struct Loop {
    Node* merge = nullptr;
  };
  struct FrameFacts {
    const Node* enter = nullptr;  // An Enter opening the frame.
    const Node* loop_cond = nullptr;
    std::string parent;  // The enclosing frame's name.
  };

  // The control loop of `frame` on `device`, built (with its ancestors')
  // the first time.
  absl::StatusOr<Node*> LoopMerge(const std::string& frame, const std::string& device);
  absl::StatusOr<Node*> Add(NodeDef def, const std::string& device);
  std::string NewName(const std::string& base);

  Graph* const graph_;
  std::vector<ControlFlowInfo> info_;
  absl::flat_hash_map<std::string, FrameFacts> frames_;
  // (frame, device) -> its control loop's Merge.
  absl::flat_hash_map<std::pair<std::string, std::string>, Node*> loops_;
  int next_id_ = 0;
};

std::string ControlLoopBuilder::NewName(const std::string& base) {
  std::string name;
  do {
    name = absl::StrCat(kPrefix, base, "_", next_id_++);
  } while (graph_->FindNode(name) != nullptr);
  return name;
}

absl::StatusOr<Node*> ControlLoopBuilder::Add(NodeDef def, const std::string& device) {
  def.device = device;
  MINITF_ASSIGN_OR_RETURN(Node * n, graph_->AddNode(std::move(def)));
  n->set_assigned_device_name(device);
  return n;
}

absl::StatusOr<Node*> ControlLoopBuilder::LoopMerge(const std::string& frame,
                                                    const std::string& device) {
  if (auto it = loops_.find({frame, device}); it != loops_.end()) return it->second;
  const FrameFacts& facts = frames_[frame];
  if (facts.loop_cond == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "While loop '", frame, "' has no LoopCond node, so its iterations cannot be "
        "driven on ", device));
  }
  // What starts the loop on this device: a constant in the root frame, or
  // the enclosing loop's control Merge once per iteration of that loop.
  Node* start = nullptr;
  if (facts.parent.empty()) {
    NodeDef c;
    c.name = NewName("start");
    c.op = "Const";
    c.attr["dtype"] = DT_FLOAT;
    c.attr["value"] = Tensor::Scalar<float>(0.0f);
    MINITF_ASSIGN_OR_RETURN(start, Add(std::move(c), device));
  } else {
    MINITF_ASSIGN_OR_RETURN(start, LoopMerge(facts.parent, device));
  }
  int64_t parallel_iterations = 10;
  MINITF_RETURN_IF_ERROR(
      GetNodeAttr(facts.enter->def(), "parallel_iterations", &parallel_iterations));
  NodeDef enter;
  enter.name = NewName("enter");
  enter.op = "Enter";
  enter.attr["T"] = DT_FLOAT;
  enter.attr["frame_name"] = frame;
  enter.attr["parallel_iterations"] = parallel_iterations;
  NodeDef merge;
  merge.name = NewName("merge");
  merge.op = "Merge";
  merge.attr["T"] = DT_FLOAT;
  merge.attr["N"] = 2;
  NodeDef sw;
  sw.name = NewName("switch");
  sw.op = "Switch";
  sw.attr["T"] = DT_FLOAT;
  NodeDef next;
  next.name = NewName("next_iteration");
  next.op = "NextIteration";
  next.attr["T"] = DT_FLOAT;
  MINITF_ASSIGN_OR_RETURN(Node * enter_node, Add(std::move(enter), device));
  MINITF_ASSIGN_OR_RETURN(Node * merge_node, Add(std::move(merge), device));
  MINITF_ASSIGN_OR_RETURN(Node * switch_node, Add(std::move(sw), device));
  MINITF_ASSIGN_OR_RETURN(Node * next_node, Add(std::move(next), device));
  graph_->AddEdge(start, 0, enter_node, 0);
  graph_->AddEdge(enter_node, 0, merge_node, 0);
  graph_->AddEdge(next_node, 0, merge_node, 1);
  graph_->AddEdge(merge_node, 0, switch_node, 0);
  graph_->AddEdge(const_cast<Node*>(facts.loop_cond), 0, switch_node, 1);
  graph_->AddEdge(switch_node, 1, next_node, 0);
  loops_[{frame, device}] = merge_node;
  return merge_node;
}

absl::Status ControlLoopBuilder::Run() {
  if (!HasLoops(*graph_)) return absl::OkStatus();
  MINITF_RETURN_IF_ERROR(BuildControlFlowInfo(*graph_, &info_));
  for (const Node* n : graph_->op_nodes()) {
    const ControlFlowInfo& i = info_[n->id()];
    if (n->IsLoopCond()) frames_[i.frame_name].loop_cond = n;
    if (n->IsEnter()) {
      FrameFacts& facts = frames_[OutputFrame(*n, info_)];
      if (facts.enter == nullptr) {
        facts.enter = n;
        facts.parent = i.frame_name;
      }
    }
  }
  // The cross-device edges inside a frame, and the control loop each
  // receiving device needs. Collected first: building adds edges.
  std::vector<std::tuple<const Edge*, std::string, std::string>> crossing;
  for (const Node* dst : graph_->op_nodes()) {
    for (const Edge* e : dst->in_edges()) {
      const Node* src = e->src();
      if (!src->IsOp() || src->assigned_device_name() == dst->assigned_device_name()) continue;
      const std::string frame = OutputFrame(*src, info_);
      if (frame.empty() || frame != info_[dst->id()].frame_name) continue;
      crossing.emplace_back(e, frame, dst->assigned_device_name());
    }
  }
  std::vector<std::pair<Node*, Node*>> waits;  // (control loop merge, node to wait)
  for (const auto& [edge, frame, device] : crossing) {
    MINITF_ASSIGN_OR_RETURN(Node * merge, LoopMerge(frame, device));
    waits.emplace_back(merge, edge->dst());
  }
  // The control loops' own Switches receive the LoopCond from another
  // device too; they wait on their Merge already (a data edge).
  for (auto& [merge, dst] : waits) {
    bool present = false;
    for (const Edge* e : dst->in_edges()) present |= e->src() == merge;
    if (!present) graph_->AddControlEdge(merge, dst);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AddControlLoops(Graph* graph) { return ControlLoopBuilder(graph).Run(); }

bool IsControlLoopMerge(const Node& node) {
  return node.IsMerge() && absl::StartsWith(node.name(), kPrefix);
}

}  // namespace minitf
