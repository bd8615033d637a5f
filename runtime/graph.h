// Graph, Node, Edge: the in-memory dataflow graph the runtime executes.
//
// A Graph always has two special nodes, _SOURCE (id 0) and _SINK (id 1). A
// data edge carries output `src_output` of `src` to input `dst_input` of
// `dst`; a control edge (both slots kControlSlot) only orders the two nodes.
// After construction, every node without inputs has a control edge from
// _SOURCE and every node without outputs has one to _SINK, so both reach
// every node.
//
//   MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, ConvertGraphDefToGraph(def));
//   for (Node* n : g->op_nodes()) ...
//
// Not thread-safe to mutate; a finished Graph may be read from many threads.
#ifndef MINITF_RUNTIME_GRAPH_H_
#define MINITF_RUNTIME_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "runtime/graph_def.h"
#include "runtime/op_def.h"
#include "runtime/tensor_shape.h"
#include "runtime/types.h"

namespace minitf {

class Node;

class Edge {
 public:
  Node* src() const { return src_; }
  Node* dst() const { return dst_; }
  int id() const { return id_; }
  int src_output() const { return src_output_; }
  int dst_input() const { return dst_input_; }
  bool IsControlEdge() const { return src_output_ == kControlSlot; }

 private:
  friend class Graph;
  Node* src_ = nullptr;
  Node* dst_ = nullptr;
  int id_ = -1;
  int src_output_ = 0;
  int dst_input_ = 0;
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_.name; }
  const std::string& type_string() const { return def_.op; }
  const NodeDef& def() const { return def_; }
  // nullptr for _SOURCE and _SINK.
  const OpDef* op_def() const { return op_def_; }
  bool IsSource() const { return id_ == 0; }
  bool IsSink() const { return id_ == 1; }
  bool IsOp() const { return id_ > 1; }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }
  // Inferred at construction; unknown parts where inference could not tell.
  const std::vector<PartialTensorShape>& output_shapes() const { return output_shapes_; }

  const std::vector<const Edge*>& in_edges() const { return in_edges_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }
  // The data edge into input `i`, or an error.
  absl::StatusOr<const Edge*> input_edge(int i) const;

  // The device the node was placed on (full name); empty before placement.
  const std::string& assigned_device_name() const { return assigned_device_name_; }
  void set_assigned_device_name(std::string name) { assigned_device_name_ = std::move(name); }
  // The device the NodeDef asked for (may be empty or partial).
  const std::string& requested_device() const { return def_.device; }

  bool IsSwitch() const { return def_.op == "Switch"; }
  bool IsMerge() const { return def_.op == "Merge"; }
  bool IsEnter() const { return def_.op == "Enter"; }
  bool IsExit() const { return def_.op == "Exit"; }
  bool IsNextIteration() const { return def_.op == "NextIteration"; }
  bool IsLoopCond() const { return def_.op == "LoopCond"; }
  bool IsControlFlow() const {
    return IsSwitch() || IsMerge() || IsEnter() || IsExit() || IsNextIteration() ||
           IsLoopCond();
  }

 private:
  friend class Graph;
  int id_ = -1;
  NodeDef def_;
  const OpDef* op_def_ = nullptr;
  DataTypeVector input_types_;
  DataTypeVector output_types_;
  std::vector<PartialTensorShape> output_shapes_;
  std::vector<const Edge*> in_edges_;
  std::vector<const Edge*> out_edges_;
  std::string assigned_device_name_;
};

class Graph {
 public:
  Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Adds a node for `def`, resolving its OpDef, filling attr defaults and
  // checking its attrs. Errors name the node. Inputs are not connected here.
  absl::StatusOr<Node*> AddNode(NodeDef def);
  // REQUIRES: x and y belong to this graph; slots are in range.
  const Edge* AddEdge(Node* src, int src_output, Node* dst, int dst_input);
  const Edge* AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* edge);
  void RemoveNode(Node* node);

  Node* source_node() const { return nodes_[0].get(); }
  Node* sink_node() const { return nodes_[1].get(); }
  // nullptr when absent.
  Node* FindNode(absl::string_view name) const;
  // Ids are dense but may have holes after RemoveNode; num_node_ids() bounds them.
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  Node* FindNodeId(int id) const { return nodes_[id].get(); }
  int num_op_nodes() const { return num_op_nodes_; }
  // Every live node except _SOURCE and _SINK, in id order.
  std::vector<Node*> op_nodes() const;
  // Every live node, in id order.
  std::vector<Node*> nodes() const;

  void set_output_shapes(Node* node, std::vector<PartialTensorShape> shapes) {
    node->output_shapes_ = std::move(shapes);
  }

  // Links nodes with no inputs to _SOURCE and nodes with no outputs to _SINK.
  void FixupSourceAndSinkEdges();

  // A GraphDef with the op nodes (and their inputs as strings).
  GraphDef ToGraphDef() const;

  // Nodes in an order where every node follows its inputs, leaving out a
  // while loop's back edges (those out of a NextIteration); an
  // InvalidArgument naming the nodes on a cycle when there is another one.
  absl::StatusOr<std::vector<Node*>> TopologicalOrder() const;

 private:
  std::vector<std::unique_ptr<Node>> nodes_;  // Index = id; null once removed.
  std::vector<std::unique_ptr<Edge>> edges_;  // Index = id; null once removed.
  absl::flat_hash_map<std::string, Node*> by_name_;
  int num_op_nodes_ = 0;
};

// Builds a Graph from `def`, checking it against the op registry: unique
// names, known ops, attrs, input counts, inputs naming existing nodes and
// ports of matching types, control inputs after data inputs, no cycles, and
// shape functions. Every error names the node at fault.
absl::StatusOr<std::unique_ptr<Graph>> ConvertGraphDefToGraph(const GraphDef& def);

// A deep copy of `graph` (same node names, ids may differ).
absl::StatusOr<std::unique_ptr<Graph>> CopyGraph(const Graph& graph);

// Runs the shape functions of `graph` again, keeping what its nodes' outputs
// already hold where the new shape says less: after a pass made an input
// constant (a reduction's axes, a Reshape's shape), what follows from it.
absl::Status RefineShapes(Graph* graph);

}  // namespace minitf

#endif  // MINITF_RUNTIME_GRAPH_H_
