#include "runtime/simple_propagator_state.h"

#include <algorithm>

namespace minitf {

SimplePropagatorState::SimplePropagatorState(const GraphView& gview,
                                             const std::vector<uint64_t>& initial_pending)
    : gview_(gview),
      input_tensors_(gview.total_inputs()),
      pending_(std::make_unique_for_overwrite<uint64_t[]>(initial_pending.size())) {
  std::copy(initial_pending.begin(), initial_pending.end(), pending_.get());
}

void SimplePropagatorState::ActivateRoots(const std::vector<int>& roots, TaggedNodeSeq* ready) {
  for (int id : roots) ready->push_back(TaggedNode{gview_.node(id), false});
}

void SimplePropagatorState::PropagateOutputs(const TaggedNode& tagged, EntryVector* outputs,
                                             TaggedNodeSeq* ready) {
  const NodeItem& item = *tagged.item;
  const EdgeInfo* edges = item.output_edges();
  for (int i = 0; i < item.num_output_edges; ++i) {
    const EdgeInfo& e = edges[i];
    const NodeItem* dst = e.dst;
    Entry* src_entry = tagged.is_dead ? nullptr : &(*outputs)[e.output_slot];
    const bool is_dead = src_entry == nullptr || src_entry->state == Entry::State::kNoValue;
    if (!is_dead) {
      Entry& dst_entry = input_tensors_[dst->input_start + e.input_slot];
      if (e.is_last) {
        dst_entry = std::move(*src_entry);
      } else {
        dst_entry = *src_entry;
      }
    }
    if (dst->has_one_input) {
      ready->push_back(TaggedNode{dst, is_dead});
      continue;
    }
    std::atomic_ref<uint64_t> word(pending_[e.dst_id]);
    if (!dst->is_merge) {
      const uint64_t delta = (is_dead ? kDeadOne : 0) - 1;
      const uint64_t now = word.fetch_add(delta, std::memory_order_acq_rel) + delta;
      if (PendingOf(now) == 0) ready->push_back(TaggedNode{dst, DeadOf(now) > 0});
      continue;
    }
    // Merge: ready on the first live input, or dead once all inputs are dead.
    uint64_t old = word.load(std::memory_order_acquire);
    while (true) {
      uint64_t now = old;
      bool activate = false, activate_dead = false;
      if (!is_dead) {
        if ((PendingOf(old) & 1) == 0) break;  // A live input already arrived.
        now = old & ~uint64_t{1};
        activate = PendingOf(now) == 0;
      } else {
        now = old + kDeadOne;
        activate_dead = (PendingOf(now) == 1) &&
                        DeadOf(now) == static_cast<uint32_t>(dst->num_data_inputs);
      }
      if (word.compare_exchange_weak(old, now, std::memory_order_acq_rel)) {
        if (activate) ready->push_back(TaggedNode{dst, false});
        if (activate_dead) ready->push_back(TaggedNode{dst, true});
        break;
      }
    }
  }
  const ControlEdgeInfo* controls = item.output_control_edges();
  for (int i = 0; i < item.num_output_control_edges; ++i) {
    const NodeItem* dst = controls[i].dst;
    if (dst->has_one_input) {
      ready->push_back(TaggedNode{dst, tagged.is_dead});
      continue;
    }
    std::atomic_ref<uint64_t> word(pending_[controls[i].dst_id]);
    if (!dst->is_merge) {
      const uint64_t delta = (tagged.is_dead ? kDeadOne : 0) - 1;
      const uint64_t now = word.fetch_add(delta, std::memory_order_acq_rel) + delta;
      if (PendingOf(now) == 0) ready->push_back(TaggedNode{dst, DeadOf(now) > 0});
      continue;
    }
    const uint64_t now = word.fetch_sub(2, std::memory_order_acq_rel) - 2;
    if (PendingOf(now) == 0) {
      ready->push_back(TaggedNode{dst, false});
    } else if (PendingOf(now) == 1 &&
               DeadOf(now) == static_cast<uint32_t>(dst->num_data_inputs) &&
               dst->num_data_inputs > 0) {
      ready->push_back(TaggedNode{dst, true});
    }
  }
}

}  // namespace minitf
