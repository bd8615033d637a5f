// Scope and OpBuilder: the fluent C++ graph builder (TensorFlow's C++
// `Scope` / `ops::` API is the model). A Scope names nodes, carries a device
// and control dependencies, and records the first error; ops:: functions
// (ops/cc/) add nodes through OpBuilder and return their Outputs.
//
//   Scope root = Scope::NewRootScope();
//   auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
//   auto w = ops::Const(root, Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2}));
//   auto y = ops::MatMul(root, x, w, {.transpose_b = true});
//   GraphDef def;
//   MINITF_RETURN_IF_ERROR(root.ToGraphDef(&def));
//
// A Scope and the Scopes derived from it share one graph under construction.
// Not thread-safe: build a graph from one thread.
#ifndef MINITF_OPS_CC_SCOPE_H_
#define MINITF_OPS_CC_SCOPE_H_

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/attr_value.h"
#include "runtime/graph_def.h"
#include "runtime/tensor.h"

namespace minitf {

// One output of a node: "node:index" with its type.
class Output {
 public:
  Output() = default;
  Output(std::string node, int index, DataType dtype)
      : node_(std::move(node)), index_(index), dtype_(dtype) {}

  const std::string& node_name() const { return node_; }
  int index() const { return index_; }
  // The element type (a ref type for a Variable's output).
  DataType type() const { return dtype_; }
  bool valid() const { return !node_.empty(); }
  // A handle on node `name` itself (index kControlSlot) rather than an output.
  static Output ForNode(std::string name) {
    return Output(std::move(name), -1, DT_INVALID);
  }
  // "node" for output 0 and node handles, else "node:index" (the form
  // GraphDefs use).
  std::string name() const;

 private:
  std::string node_;
  int index_ = 0;
  DataType dtype_ = DT_INVALID;
};

// An op argument: an Output, or a constant (a Tensor or a C++ literal) that
// the builder turns into a Const node, converted to the type the op needs.
class Input {
 public:
  Input(const Output& output) : output_(output) {}  // NOLINT
  Input(const Tensor& value) : constant_(value) {}  // NOLINT
  Input(float v) : Input(Tensor::Scalar<float>(v)) {}       // NOLINT
  Input(double v) : Input(Tensor::Scalar<double>(v)) {}     // NOLINT
  Input(int v) : Input(Tensor::Scalar<int32_t>(v)) {}       // NOLINT
  Input(int64_t v) : Input(Tensor::Scalar<int64_t>(v)) {}   // NOLINT
  Input(bool v) : Input(Tensor::Scalar<bool>(v)) {}         // NOLINT
  Input(std::initializer_list<float> v) : Input(Tensor::FromVector<float>(v)) {}    // NOLINT
  Input(std::initializer_list<int> v);                                              // NOLINT

  bool is_constant() const { return !output_.valid(); }
  const Output& output() const { return output_; }
  const Tensor& constant() const { return constant_; }

 private:
  Output output_;
  Tensor constant_;
};

using InputList = std::vector<Output>;

class Scope {
 public:
  static Scope NewRootScope();

  // The next op built with the returned scope gets exactly this name
  // (prefixed by the sub-scope); a duplicate is an error.
  Scope WithOpName(std::string name) const;
  // Ops built with the returned scope are named "<name>/<op>".
  Scope NewSubScope(std::string name) const;
  // A sub-scope named `base`, or `base_1`, `base_2`... whichever no node
  // or earlier such scope has taken; `full_name` gets its full name (with
  // the enclosing prefixes). For builders of several ops (WhileLoop, Cond).
  Scope NewUniqueSubScope(const std::string& base, std::string* full_name) const;
  Scope WithDevice(std::string device) const;
  // Ops built with the returned scope run after `deps`.
  Scope WithControlDependencies(const std::vector<Output>& deps) const;
  // The same scope without the control dependencies it carries.
  Scope WithNoControlDependencies() const;

  // The first error any builder met, or OK.
  absl::Status status() const;
  bool ok() const { return status().ok(); }
  // Records `s` if it is the first error.
  void UpdateStatus(const absl::Status& s) const;

  // The GraphDef built so far; the scope's error if there was one.
  absl::Status ToGraphDef(GraphDef* out) const;
  // The nodes built so far, without a copy (valid until the next node is
  // added): what AddSymbolicGradients walks.
  const GraphDef& graph_def() const;
  // The node named `name`, or null.
  const NodeDef* FindNode(const std::string& name) const;

  // Named lists of outputs kept with the graph, as TensorFlow's graph
  // collections: the variables and their initialisers (ops/cc/variables.h).
  void AddToCollection(const std::string& key, const Output& value) const;
  std::vector<Output> GetCollection(const std::string& key) const;

  // Internals used by OpBuilder.
  std::string NameForNewOp(const std::string& default_name) const;
  // `base`, or `base_1`, `base_2`... whichever is not taken yet.
  std::string UniqueName(const std::string& base) const;
  const std::string& device() const { return device_; }
  const std::vector<std::string>& control_deps() const { return control_deps_; }
  void AddNode(NodeDef def) const;
  // Makes data input `index` of the node named `node` read `value` instead:
  // how a while loop closes its back edge (NextIteration -> Merge) once the
  // body is built. An error names the node when it does not exist or has no
  // such input.
  absl::Status UpdateInput(const std::string& node, int index, const Output& value) const;

 private:
  struct Graph;
  Scope() = default;

  std::shared_ptr<Graph> graph_;  // Shared by every scope derived from the root.
  std::string prefix_;
  std::string op_name_;
  std::string device_;
  std::vector<std::string> control_deps_;
};

// Adds one node: infers type attrs from its inputs, converts constant inputs,
// fills defaults, checks attrs and input types. On error the scope records
// it and the returned outputs are invalid.
class OpBuilder {
 public:
  OpBuilder(const Scope& scope, std::string op);

  OpBuilder& Input(const ::minitf::Input& input);
  OpBuilder& InputList(const std::vector<Output>& inputs);
  OpBuilder& ControlInput(const Output& dep);
  OpBuilder& Attr(const std::string& name, AttrValue value);

  // The node's outputs (empty on error).
  std::vector<Output> Finalize();
  // The node's only or first output (invalid on error).
  Output Finalize1();
  // For ops used for their effect (NoOp, Assign as a target): a handle that
  // names the node, usable as a control dependency or a Run target.
  Output FinalizeNode();

 private:
  struct Arg {
    std::vector<::minitf::Input> values;
    bool is_list = false;
  };
  const Scope scope_;
  NodeDef def_;
  std::vector<Arg> args_;
  std::vector<std::string> control_inputs_;
};

// A Const node holding `value` (the builder's way to embed a Tensor).
Output ConstFromTensor(const Scope& scope, const Tensor& value);

}  // namespace minitf

#endif  // MINITF_OPS_CC_SCOPE_H_
