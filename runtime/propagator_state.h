// PropagatorState: how a step of a graph with while loops moves outputs to
// consumers (TensorFlow's PropagatorState).
//
// Each loop runs in a frame; a frame instance exists per iteration of its
// enclosing frame (the root frame has one), and holds up to
// `parallel_iterations` iterations at once, each with its own pending counts
// and input slots. Enter moves a value into iteration 0 of a child frame
// (a constant Enter into every iteration), NextIteration into the next
// iteration of its frame (starting it, or deferring it while the frame has
// `parallel_iterations` in flight), and Exit back into the enclosing frame.
// A dead NextIteration ends its loop variable's iterations; a dead Exit of
// the latest iteration is handed to the enclosing frame when the frame is
// done (a loop in the untaken branch of a cond). A frame is deleted once its
// inputs have all entered and its iterations have all finished.
//
// Thread-safe: one mutex guards every frame and iteration of the step (the
// executor takes it once per node that finishes in a loop graph).
#ifndef MINITF_RUNTIME_PROPAGATOR_STATE_H_
#define MINITF_RUNTIME_PROPAGATOR_STATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "platform/mutex.h"
#include "runtime/entry.h"
#include "runtime/frame_and_iter.h"
#include "runtime/graph.h"
#include "runtime/graph_view.h"

namespace minitf {

// Where each node's per-iteration state lives in its frame: computed once
// per executor, for graphs with loops.
struct LoopLayout {
  struct Frame {
    std::string name;  // "" for the root frame.
    int64_t parallel_iterations = 1;
    // The pending word each node of the frame starts an iteration with, by
    // the node's pending index.
    std::vector<uint64_t> initial_pending;
    int total_inputs = 0;  // Input slots of one iteration.
    int num_enters = 0;    // Enter nodes opening the frame.
  };
  std::vector<Frame> frames;  // frames[0] is the root frame.
  // By node id:
  std::vector<int32_t> frame_of;       // The frame the node runs in.
  std::vector<int32_t> child_frame;    // Enter: the frame it opens; else -1.
  std::vector<int32_t> pending_index;  // Its pending word in an iteration.
  std::vector<int32_t> input_start;    // Its first input slot in an iteration.
  std::vector<bool> is_constant_enter;

  // `initial_pending[id]` is node id's pending word at the start of an
  // iteration (the executor's, by node id). An error names the node whose
  // frame is inconsistent, or the Enter whose parallel_iterations is below 1.
  static absl::StatusOr<LoopLayout> Build(const Graph& graph, const GraphView& gview,
                                          const std::vector<uint64_t>& initial_pending);
};

class PropagatorState {
 public:
  struct FrameState;
  struct IterationState;

  struct TaggedNode {
    const NodeItem* item;
    FrameState* frame;
    IterationState* iter;
    bool is_dead;
  };
  using TaggedNodeSeq = absl::InlinedVector<TaggedNode, 8>;

  // Both arguments must outlive the propagator.
  PropagatorState(const GraphView& gview, const LoopLayout& layout);
  ~PropagatorState();

  void ActivateRoots(const std::vector<int>& roots, TaggedNodeSeq* ready);
  // Valid until the node's outputs are propagated.
  Entry* GetInputTensors(const TaggedNode& node);
  FrameAndIter GetFrameAndIter(const TaggedNode& node);
  void PropagateOutputs(const TaggedNode& node, EntryVector* outputs, TaggedNodeSeq* ready);

 private:
  // Activates the consumers of `item` in `iter` of `frame`; returns how many
  // became ready.
  int ActivateNodes(const NodeItem* item, bool is_dead, FrameState* frame,
                    IterationState* iter, EntryVector* outputs, TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  FrameState* FindOrCreateChildFrame(FrameState* frame, IterationState* iter,
                                     const NodeItem* enter) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  IterationState* IncrementIteration(FrameState* frame, TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AddLoopInvariant(FrameState* frame, const NodeItem* item, const Entry& value,
                        TaggedNodeSeq* ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Adds `delta` to the iteration's outstanding ops; true when that
  // finished the frame.
  bool AdjustOutstandingOps(FrameState* frame, IterationState* iter, int delta,
                            TaggedNodeSeq* ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IsIterationDone(FrameState* frame, IterationState* iter)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Deletes the finished iterations from `iter` on; true when the frame is
  // done.
  bool CleanupIterations(FrameState* frame, IterationState* iter, TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Deletes a finished frame, handing its dead exits to the parent, and
  // then any ancestor it finishes.
  void DeleteFrameAndAncestors(FrameState* frame, TaggedNodeSeq* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const GraphView& gview_;
  const LoopLayout& layout_;
  Mutex mu_;
  // Every live frame instance, by id. The root frame has id 0.
  absl::flat_hash_map<uint64_t, std::unique_ptr<FrameState>> frames_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_PROPAGATOR_STATE_H_
