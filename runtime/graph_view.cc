#include "runtime/graph_view.h"

#include <new>

#include "platform/logging.h"

namespace minitf {

size_t NodeItem::BytesFor(int num_output_edges, int num_output_control_edges, int num_inputs,
                          int num_outputs) {
  const size_t bytes = sizeof(NodeItem) + num_output_edges * sizeof(EdgeInfo) +
                       num_output_control_edges * sizeof(ControlEdgeInfo) +
                       (num_inputs + num_outputs) * sizeof(DataType);
  return (bytes + 7) & ~size_t{7};
}

namespace {

bool IsInitializationOp(const Node* n) {
  const std::string& op = n->type_string();
  return op == "Assign";
}

// Out-edges that matter to the executor: to op nodes (not _SINK).
void CountOutEdges(const Node* n, int* data, int* control) {
  *data = 0;
  *control = 0;
  for (const Edge* e : n->out_edges()) {
    if (!e->dst()->IsOp()) continue;
    if (e->IsControlEdge()) {
      ++*control;
    } else {
      ++*data;
    }
  }
}

}  // namespace

void GraphView::Initialize(const Graph* graph, const std::vector<OpKernel*>& kernels) {
  static_assert(sizeof(NodeItem) % 8 == 0 || alignof(NodeItem) <= 8);
  offsets_.assign(graph->num_node_ids(), kNoItem);
  size_t total = 0;
  for (const Node* n : graph->op_nodes()) {
    int data = 0, control = 0;
    CountOutEdges(n, &data, &control);
    offsets_[n->id()] = static_cast<uint32_t>(total);
    total += NodeItem::BytesFor(data, control, n->num_inputs(), n->num_outputs());
  }
  space_ = std::make_unique<char[]>(std::max<size_t>(total, 8));
  total_inputs_ = 0;
  for (const Node* n : graph->op_nodes()) {
    char* where = space_.get() + offsets_[n->id()];
    NodeItem* item = new (where) NodeItem();
    item->id = n->id();
    item->node = n;
    item->kernel = kernels[n->id()];
    MINITF_CHECK(item->kernel != nullptr);
    item->kernel_is_async = item->kernel->AsAsync() != nullptr;
    item->kernel_is_expensive = item->kernel->IsExpensive();
    item->is_merge = n->IsMerge();
    item->is_switch = n->IsSwitch();
    item->is_initialization_op = IsInitializationOp(n);
    item->is_enter = n->IsEnter();
    item->is_exit = n->IsExit();
    item->is_next_iteration = n->IsNextIteration();
    item->num_inputs = n->num_inputs();
    item->num_outputs = n->num_outputs();
    item->input_start = total_inputs_;
    total_inputs_ += n->num_inputs();
    int data = 0, control = 0;
    CountOutEdges(n, &data, &control);
    item->num_output_edges = data;
    item->num_output_control_edges = control;
    int op_inputs = 0;
    for (const Edge* e : n->in_edges()) {
      if (!e->src()->IsOp()) continue;
      ++op_inputs;
      if (!e->IsControlEdge()) ++item->num_data_inputs;
    }
    item->has_one_input = op_inputs == 1 && !item->is_merge;
    // Fill the trailing arrays.
    auto* edges = const_cast<EdgeInfo*>(item->output_edges());
    auto* controls = const_cast<ControlEdgeInfo*>(item->output_control_edges());
    std::vector<int> last_edge_for_slot(n->num_outputs(), -1);
    int ei = 0, ci = 0;
    for (const Edge* e : n->out_edges()) {
      if (!e->dst()->IsOp()) continue;
      // Every item's place is known before any is built.
      const NodeItem* dst = node(e->dst()->id());
      if (e->IsControlEdge()) {
        controls[ci++] = ControlEdgeInfo{dst, e->dst()->id()};
      } else {
        last_edge_for_slot[e->src_output()] = ei;
        edges[ei++] = EdgeInfo{dst, e->dst()->id(), e->src_output(), e->dst_input(), false};
      }
    }
    for (int idx : last_edge_for_slot) {
      if (idx >= 0) edges[idx].is_last = true;
    }
    auto* types = const_cast<DataType*>(item->input_types());
    for (int i = 0; i < n->num_inputs(); ++i) types[i] = n->input_type(i);
    for (int i = 0; i < n->num_outputs(); ++i) types[n->num_inputs() + i] = n->output_type(i);
  }
}

}  // namespace minitf
