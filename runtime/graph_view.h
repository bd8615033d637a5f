// GraphView and NodeItem: the compiled, immutable form of a graph that an
// executor runs, built once per executor.
//
// Each op node becomes a NodeItem laid out in one contiguous block together
// with its out-edges, control out-edges, input types and output types:
//
//   [NodeItem][EdgeInfo x num_output_edges][ControlEdgeInfo x num_output_control_edges]
//   [DataType x num_inputs][DataType x num_outputs]
//
// so the executor's hot loop walks memory it has just touched. Items are
// found by node id. Per-step mutable state (pending counts, input tensors)
// lives in the executor, never here.
#ifndef MINITF_RUNTIME_GRAPH_VIEW_H_
#define MINITF_RUNTIME_GRAPH_VIEW_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/graph.h"
#include "runtime/op_kernel.h"

namespace minitf {

struct NodeItem;

// A data edge leaving a node. `dst` is the consumer's item, `dst_id` its id:
// the executor reaches the item without a lookup by id, one dependent load
// fewer per edge.
struct EdgeInfo {
  const NodeItem* dst;
  int32_t dst_id;
  int32_t output_slot;
  int32_t input_slot;
  // True for the last data edge out of `output_slot`: that consumer may take
  // the tensor by move instead of by copy.
  bool is_last;
};

// A control edge leaving a node.
struct ControlEdgeInfo {
  const NodeItem* dst;
  int32_t dst_id;
};

struct NodeItem {
  int id = -1;
  const Node* node = nullptr;  // Not owned.
  OpKernel* kernel = nullptr;  // Not owned (the executor owns kernels).

  bool kernel_is_async : 1;
  bool kernel_is_expensive : 1;
  bool is_merge : 1;
  bool is_switch : 1;
  // Assign-like ops may read an uninitialized reference input.
  bool is_initialization_op : 1;
  // While-loop ops whose outputs change frame or iteration.
  bool is_enter : 1;
  bool is_exit : 1;
  bool is_next_iteration : 1;
  // Not a Merge, and exactly one input edge (data or control) from an op
  // node: the arrival of that input makes the node ready, with no count to
  // keep.
  bool has_one_input : 1;

  int32_t num_inputs = 0;
  int32_t num_outputs = 0;
  // Index of this node's first input in the step's input-slot array.
  int32_t input_start = 0;
  // Data inputs that come from op nodes (for Merge's dead-input count).
  int32_t num_data_inputs = 0;
  int32_t num_output_edges = 0;
  int32_t num_output_control_edges = 0;

  NodeItem()
      : kernel_is_async(false),
        kernel_is_expensive(false),
        is_merge(false),
        is_switch(false),
        is_initialization_op(false),
        is_enter(false),
        is_exit(false),
        is_next_iteration(false),
        has_one_input(false) {}

  const EdgeInfo* output_edges() const {
    return reinterpret_cast<const EdgeInfo*>(reinterpret_cast<const char*>(this) +
                                             sizeof(NodeItem));
  }
  const ControlEdgeInfo* output_control_edges() const {
    return reinterpret_cast<const ControlEdgeInfo*>(output_edges() + num_output_edges);
  }
  const DataType* input_types() const {
    return reinterpret_cast<const DataType*>(output_control_edges() +
                                             num_output_control_edges);
  }
  const DataType* output_types() const { return input_types() + num_inputs; }
  DataType input_type(int i) const { return input_types()[i]; }
  DataType output_type(int i) const { return output_types()[i]; }

  // Bytes one item takes with its trailing arrays, rounded to 8.
  static size_t BytesFor(int num_output_edges, int num_output_control_edges, int num_inputs,
                         int num_outputs);
};

class GraphView {
 public:
  GraphView() = default;
  GraphView(const GraphView&) = delete;
  GraphView& operator=(const GraphView&) = delete;

  // Lays out every op node of `graph`. `kernels[id]` is node id's kernel.
  // REQUIRES: `graph` and the kernels outlive the view.
  void Initialize(const Graph* graph, const std::vector<OpKernel*>& kernels);

  // nullptr for ids with no op node (_SOURCE, _SINK, removed nodes).
  const NodeItem* node(int id) const {
    const uint32_t offset = offsets_[id];
    return offset == kNoItem ? nullptr : reinterpret_cast<const NodeItem*>(space_.get() + offset);
  }
  int num_node_ids() const { return static_cast<int>(offsets_.size()); }
  // Total input slots across all nodes (the size of a step's input array).
  int total_inputs() const { return total_inputs_; }

 private:
  static constexpr uint32_t kNoItem = 0xffffffffu;
  std::vector<uint32_t> offsets_;
  std::unique_ptr<char[]> space_;
  int total_inputs_ = 0;
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_GRAPH_VIEW_H_
