// SimplePropagatorState: how a step of a graph without while loops moves
// outputs to consumers (TensorFlow's SimplePropagatorState). Every node runs
// once, in one frame and iteration, so a node's pending count and input
// slots are fixed arrays indexed by node id, updated with atomics and no
// lock. Graphs with loops use PropagatorState instead.
#ifndef MINITF_RUNTIME_SIMPLE_PROPAGATOR_STATE_H_
#define MINITF_RUNTIME_SIMPLE_PROPAGATOR_STATE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "runtime/entry.h"
#include "runtime/frame_and_iter.h"
#include "runtime/graph_view.h"

namespace minitf {

class SimplePropagatorState {
 public:
  // A ready node, and whether it is dead (it does not run; its outputs are
  // dead).
  struct TaggedNode {
    TaggedNode() = default;
    TaggedNode(const NodeItem* item, bool is_dead) : item(item), is_dead(is_dead) {}
    // Copied field by field, never as one 16-byte move: a node pushed onto
    // a ready list is read back at once, and a 16-byte load of what an
    // 8-byte and a 1-byte store just wrote cannot be forwarded from them
    // (it waits for both to reach the cache: half of PropagateOutputs' time
    // on a NoOp chain).
    TaggedNode(const TaggedNode& other) : item(other.item), is_dead(other.is_dead) {}
    TaggedNode& operator=(const TaggedNode& other) {
      item = other.item;
      is_dead = other.is_dead;
      return *this;
    }

    const NodeItem* item = nullptr;
    bool is_dead = false;
  };
  using TaggedNodeSeq = absl::InlinedVector<TaggedNode, 8>;

  // `initial_pending[id]` is the pending word node id starts the step with.
  // Both arguments must outlive the propagator.
  SimplePropagatorState(const GraphView& gview, const std::vector<uint64_t>& initial_pending);

  // Appends the step's root nodes (`roots`: ids of nodes with no inputs).
  void ActivateRoots(const std::vector<int>& roots, TaggedNodeSeq* ready);

  // The node's first input slot.
  Entry* GetInputTensors(const TaggedNode& node) {
    return input_tensors_.data() + node.item->input_start;
  }
  FrameAndIter GetFrameAndIter(const TaggedNode&) const { return FrameAndIter{}; }

  // Moves `outputs` into the consumers' input slots, counts their pending
  // inputs down and appends those that became ready to `ready`.
  void PropagateOutputs(const TaggedNode& node, EntryVector* outputs, TaggedNodeSeq* ready);

 private:
  const GraphView& gview_;
  // Each node's input slots, indexed by NodeItem::input_start + i. A slot
  // is written only by the one thread that propagates its producer's
  // outputs, before that thread's fetch_sub on the consumer's pending count
  // (acq_rel); the consumer is made ready by the decrement that reaches
  // zero, so whoever reads or clears the slots runs after every write to
  // them, and no two threads touch one slot at once.
  std::vector<Entry> input_tensors_;
  // By node id; read and written through std::atomic_ref. Plain words, so
  // that a step starts with one copy of the graph's initial counts (a
  // std::atomic array is zeroed when made, then stored word by word).
  std::unique_ptr<uint64_t[]> pending_;
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_SIMPLE_PROPAGATOR_STATE_H_
