#include "runtime/propagator_state.h"

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "platform/logging.h"
#include "runtime/control_flow.h"
#include "runtime/node_def_util.h"

namespace minitf {

absl::StatusOr<LoopLayout> LoopLayout::Build(const Graph& graph, const GraphView& gview,
                                             const std::vector<uint64_t>& initial_pending) {
  std::vector<ControlFlowInfo> info;
  if (absl::Status s = BuildControlFlowInfo(graph, &info); !s.ok()) return s;
  LoopLayout layout;
  const int n = graph.num_node_ids();
  layout.frame_of.assign(n, 0);
  layout.child_frame.assign(n, -1);
  layout.pending_index.assign(n, -1);
  layout.input_start.assign(n, 0);
  layout.is_constant_enter.assign(n, false);
  absl::flat_hash_map<std::string, int> index_of;
  layout.frames.emplace_back();
  index_of[""] = 0;
  auto frame_index = [&](const std::string& name) {
    auto [it, inserted] = index_of.try_emplace(name, static_cast<int>(layout.frames.size()));
    if (inserted) {
      layout.frames.emplace_back();
      layout.frames.back().name = name;
    }
    return it->second;
  };
  for (const Node* node : graph.op_nodes()) {
    layout.frame_of[node->id()] = frame_index(info[node->id()].frame_name);
    if (!node->IsEnter()) continue;
    std::string name;
    int64_t parallel_iterations = 0;
    bool is_constant = false;
    absl::Status s = GetNodeAttr(node->def(), "frame_name", &name);
    if (s.ok()) s = GetNodeAttr(node->def(), "parallel_iterations", &parallel_iterations);
    if (s.ok()) s = GetNodeAttr(node->def(), "is_constant", &is_constant);
    if (!s.ok()) return s;
    if (parallel_iterations < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Enter node '", node->name(), "': parallel_iterations must be at least 1, got ",
          parallel_iterations));
    }
    const int child = frame_index(name);
    Frame& frame = layout.frames[child];
    // The first Enter of a loop sets its parallel_iterations, as in TensorFlow.
    if (frame.num_enters == 0) frame.parallel_iterations = parallel_iterations;
    ++frame.num_enters;
    layout.child_frame[node->id()] = child;
    layout.is_constant_enter[node->id()] = is_constant;
  }
  for (const Node* node : graph.op_nodes()) {
    Frame& frame = layout.frames[layout.frame_of[node->id()]];
    const NodeItem* item = gview.node(node->id());
    layout.pending_index[node->id()] = static_cast<int32_t>(frame.initial_pending.size());
    layout.input_start[node->id()] = frame.total_inputs;
    frame.total_inputs += item->num_inputs;
    frame.initial_pending.push_back(initial_pending[node->id()]);
  }
  return layout;
}

struct PropagatorState::IterationState {
  IterationState(int64_t num, const LoopLayout::Frame& info)
      : iter_num(num),
        pending(new uint64_t[info.initial_pending.size()]),
        inputs(new Entry[info.total_inputs]) {
    std::copy(info.initial_pending.begin(), info.initial_pending.end(), pending.get());
  }
  const int64_t iter_num;
  std::unique_ptr<uint64_t[]> pending;  // By pending index.
  std::unique_ptr<Entry[]> inputs;      // By input slot.
  // Nodes of this iteration made ready and not yet done.
  int outstanding_ops = 0;
  // Child frames opened in this iteration and not yet done.
  int outstanding_frame_count = 0;
};

struct PropagatorState::FrameState {
  const LoopLayout::Frame* info = nullptr;
  uint64_t frame_id = 0;
  FrameState* parent_frame = nullptr;    // Null for the root frame.
  IterationState* parent_iter = nullptr;
  int64_t iteration_count = 0;  // The latest iteration started.
  int num_outstanding_iterations = 1;
  int num_pending_inputs = 0;  // Enter nodes not yet run.
  // A ring of parallel_iterations + 1 slots, by iteration number.
  std::vector<std::unique_ptr<IterationState>> iterations;
  // NextIteration outputs waiting for an iteration slot.
  std::vector<std::pair<const NodeItem*, Entry>> next_iter_roots;
  // Constant Enter outputs, handed to every new iteration.
  std::vector<std::pair<const NodeItem*, Entry>> inv_values;
  // Dead Exit nodes of the latest iteration.
  std::vector<const NodeItem*> dead_exits;

  IterationState* GetIteration(int64_t i) {
    return iterations[static_cast<size_t>(i) % iterations.size()].get();
  }
  void SetIteration(int64_t i, std::unique_ptr<IterationState> state) {
    iterations[static_cast<size_t>(i) % iterations.size()] = std::move(state);
  }
  bool IsFrameDone() const { return num_pending_inputs == 0 && num_outstanding_iterations == 0; }
};

PropagatorState::PropagatorState(const GraphView& gview, const LoopLayout& layout)
    : gview_(gview), layout_(layout) {
  auto root = std::make_unique<FrameState>();
  root->info = &layout_.frames[0];
  root->iterations.resize(2);
  root->SetIteration(0, std::make_unique<IterationState>(0, *root->info));
  MutexLock lock(&mu_);
  frames_[0] = std::move(root);
}

PropagatorState::~PropagatorState() = default;

void PropagatorState::ActivateRoots(const std::vector<int>& roots, TaggedNodeSeq* ready) {
  MutexLock lock(&mu_);
  FrameState* root = frames_.at(0).get();
  IterationState* iter = root->GetIteration(0);
  for (int id : roots) ready->push_back(TaggedNode{gview_.node(id), root, iter, false});
  iter->outstanding_ops = static_cast<int>(roots.size());
}

Entry* PropagatorState::GetInputTensors(const TaggedNode& node) {
  return node.iter->inputs.get() + layout_.input_start[node.item->id];
}

FrameAndIter PropagatorState::GetFrameAndIter(const TaggedNode& node) {
  return FrameAndIter{node.frame->frame_id, node.iter->iter_num};
}

int PropagatorState::ActivateNodes(const NodeItem* item, bool is_dead, FrameState* frame,
                                   IterationState* iter, EntryVector* outputs,
                                   TaggedNodeSeq* ready) {
  int activated = 0;
  auto add = [&](const NodeItem* dst, bool dead) {
    ready->push_back(TaggedNode{dst, frame, iter, dead});
    ++activated;
  };
  const EdgeInfo* edges = item->output_edges();
  for (int i = 0; i < item->num_output_edges; ++i) {
    const EdgeInfo& e = edges[i];
    const NodeItem* dst = e.dst;
    uint64_t& word = iter->pending[layout_.pending_index[e.dst_id]];
    Entry* src = is_dead ? nullptr : &(*outputs)[e.output_slot];
    const bool dead_input = src == nullptr || src->state == Entry::State::kNoValue;
    if (!dead_input) {
      Entry& slot = iter->inputs[layout_.input_start[e.dst_id] + e.input_slot];
      if (e.is_last) {
        slot = std::move(*src);
      } else {
        slot = *src;
      }
    }
    if (!dst->is_merge) {
      word += (dead_input ? kDeadOne : 0) - 1;
      if (PendingOf(word) == 0) add(dst, DeadOf(word) > 0);
      continue;
    }
    if (!dead_input) {
      // The first live input, with every control input in: ready and live.
      if ((PendingOf(word) & 1) == 0) continue;
      word &= ~uint64_t{1};
      if (PendingOf(word) == 0) add(dst, false);
      continue;
    }
    word += kDeadOne;
    // A dead Enter makes its loop's Merge dead at once: the whole loop is in
    // an untaken branch.
    const bool all_dead =
        DeadOf(word) == static_cast<uint32_t>(dst->num_data_inputs) || item->is_enter;
    if (PendingOf(word) == 1 && all_dead) add(dst, true);
  }
  const ControlEdgeInfo* controls = item->output_control_edges();
  for (int i = 0; i < item->num_output_control_edges; ++i) {
    const NodeItem* dst = controls[i].dst;
    uint64_t& word = iter->pending[layout_.pending_index[controls[i].dst_id]];
    if (!dst->is_merge) {
      word += (is_dead ? kDeadOne : 0) - 1;
      if (PendingOf(word) == 0) add(dst, DeadOf(word) > 0);
      continue;
    }
    word -= 2;
    if (PendingOf(word) == 0) {
      add(dst, false);
    } else if (PendingOf(word) == 1 && dst->num_data_inputs > 0 &&
               DeadOf(word) == static_cast<uint32_t>(dst->num_data_inputs)) {
      add(dst, true);
    }
  }
  return activated;
}

PropagatorState::FrameState* PropagatorState::FindOrCreateChildFrame(FrameState* frame,
                                                                     IterationState* iter,
                                                                     const NodeItem* enter) {
  const LoopLayout::Frame& info = layout_.frames[layout_.child_frame[enter->id]];
  // The same id in every partition of the step: _Send/_Recv keys use it.
  uint64_t id = absl::HashOf(frame->frame_id, iter->iter_num, info.name);
  if (id == 0) id = 1;
  auto it = frames_.find(id);
  if (it != frames_.end()) return it->second.get();
  auto child = std::make_unique<FrameState>();
  child->info = &info;
  child->frame_id = id;
  child->parent_frame = frame;
  child->parent_iter = iter;
  child->num_pending_inputs = info.num_enters;
  child->iterations.resize(static_cast<size_t>(info.parallel_iterations) + 1);
  child->SetIteration(0, std::make_unique<IterationState>(0, info));
  ++iter->outstanding_frame_count;
  FrameState* raw = child.get();
  frames_[id] = std::move(child);
  return raw;
}

PropagatorState::IterationState* PropagatorState::IncrementIteration(FrameState* frame,
                                                                     TaggedNodeSeq* ready) {
  const int64_t num = ++frame->iteration_count;
  frame->SetIteration(num, std::make_unique<IterationState>(num, *frame->info));
  IterationState* iter = frame->GetIteration(num);
  ++frame->num_outstanding_iterations;
  frame->dead_exits.clear();
  int activated = 0;
  // Deferred NextIteration outputs, then the loop invariants.
  std::vector<std::pair<const NodeItem*, Entry>> deferred = std::move(frame->next_iter_roots);
  frame->next_iter_roots.clear();
  for (auto& [item, value] : deferred) {
    EntryVector outputs{value};
    activated += ActivateNodes(item, false, frame, iter, &outputs, ready);
  }
  for (const auto& [item, value] : frame->inv_values) {
    EntryVector outputs{value};
    activated += ActivateNodes(item, value.state == Entry::State::kNoValue, frame, iter,
                               &outputs, ready);
  }
  iter->outstanding_ops += activated;
  return iter;
}

void PropagatorState::AddLoopInvariant(FrameState* frame, const NodeItem* item,
                                       const Entry& value, TaggedNodeSeq* ready) {
  frame->inv_values.emplace_back(item, value);
  const bool is_dead = value.state == Entry::State::kNoValue;
  for (int64_t i = 0; i <= frame->iteration_count; ++i) {
    IterationState* iter = frame->GetIteration(i);
    if (iter == nullptr) continue;
    EntryVector outputs{value};
    iter->outstanding_ops += ActivateNodes(item, is_dead, frame, iter, &outputs, ready);
  }
}

bool PropagatorState::IsIterationDone(FrameState* frame, IterationState* iter) {
  if (iter->outstanding_ops != 0 || iter->outstanding_frame_count != 0) return false;
  // Iteration 0 also waits for every input of the frame; a later one for
  // the one before it.
  if (iter->iter_num == 0) return frame->num_pending_inputs == 0;
  return frame->GetIteration(iter->iter_num - 1) == nullptr;
}

bool PropagatorState::CleanupIterations(FrameState* frame, IterationState* iter,
                                        TaggedNodeSeq* ready) {
  int64_t num = iter->iter_num;
  while (num <= frame->iteration_count && IsIterationDone(frame, iter)) {
    frame->SetIteration(num, nullptr);
    --frame->num_outstanding_iterations;
    ++num;
    // A freed slot lets a deferred iteration start.
    if (!frame->next_iter_roots.empty()) IncrementIteration(frame, ready);
    if (num > frame->iteration_count) break;
    iter = frame->GetIteration(num);
  }
  return frame->IsFrameDone();
}

bool PropagatorState::AdjustOutstandingOps(FrameState* frame, IterationState* iter, int delta,
                                           TaggedNodeSeq* ready) {
  iter->outstanding_ops += delta;
  if (iter->outstanding_ops != 0) return false;
  return CleanupIterations(frame, iter, ready);
}

void PropagatorState::DeleteFrameAndAncestors(FrameState* frame, TaggedNodeSeq* ready) {
  while (frame != nullptr) {
    FrameState* parent = frame->parent_frame;
    IterationState* parent_iter = frame->parent_iter;
    if (parent != nullptr) {
      // Dead exits: the enclosing frame's consumers see dead inputs.
      for (const NodeItem* exit : frame->dead_exits) {
        parent_iter->outstanding_ops +=
            ActivateNodes(exit, /*is_dead=*/true, parent, parent_iter, nullptr, ready);
      }
    }
    frames_.erase(frame->frame_id);
    if (parent == nullptr) return;
    --parent_iter->outstanding_frame_count;
    if (!CleanupIterations(parent, parent_iter, ready)) return;
    frame = parent;
  }
}

void PropagatorState::PropagateOutputs(const TaggedNode& node, EntryVector* outputs,
                                       TaggedNodeSeq* ready) {
  const NodeItem* item = node.item;
  FrameState* frame = node.frame;
  IterationState* iter = node.iter;
  MutexLock lock(&mu_);
  bool frame_done = false;
  if (!item->is_enter && !item->is_exit && !item->is_next_iteration) {
    const int activated = ActivateNodes(item, node.is_dead, frame, iter, outputs, ready);
    frame_done = AdjustOutstandingOps(frame, iter, activated - 1, ready);
  } else if (item->is_enter) {
    FrameState* child = FindOrCreateChildFrame(frame, iter, item);
    IterationState* first = child->GetIteration(0);
    MINITF_CHECK(first != nullptr);
    if (layout_.is_constant_enter[item->id]) {
      AddLoopInvariant(child, item, node.is_dead ? Entry() : (*outputs)[0], ready);
    } else {
      first->outstanding_ops += ActivateNodes(item, node.is_dead, child, first, outputs, ready);
    }
    --child->num_pending_inputs;
    // An Enter that activated nothing may have been the frame's last input.
    if (child->num_pending_inputs == 0 && first->outstanding_ops == 0 &&
        CleanupIterations(child, first, ready)) {
      DeleteFrameAndAncestors(child, ready);
    }
    frame_done = AdjustOutstandingOps(frame, iter, -1, ready);
  } else if (item->is_exit) {
    if (node.is_dead) {
      if (iter->iter_num == frame->iteration_count) frame->dead_exits.push_back(item);
    } else {
      IterationState* parent_iter = frame->parent_iter;
      parent_iter->outstanding_ops +=
          ActivateNodes(item, false, frame->parent_frame, parent_iter, outputs, ready);
    }
    frame_done = AdjustOutstandingOps(frame, iter, -1, ready);
  } else {
    // NextIteration. A dead one ends its loop variable's iterations.
    if (!node.is_dead) {
      IterationState* next = nullptr;
      if (iter->iter_num < frame->iteration_count) {
        next = frame->GetIteration(iter->iter_num + 1);
      } else if (frame->num_outstanding_iterations < frame->info->parallel_iterations) {
        next = IncrementIteration(frame, ready);
      } else {
        frame->next_iter_roots.emplace_back(item, (*outputs)[0]);
      }
      if (next != nullptr) {
        next->outstanding_ops += ActivateNodes(item, false, frame, next, outputs, ready);
      }
    }
    frame_done = AdjustOutstandingOps(frame, iter, -1, ready);
  }
  if (frame_done) DeleteFrameAndAncestors(frame, ready);
}

}  // namespace minitf
