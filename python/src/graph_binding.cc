#include "python/src/graph_binding.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/cc/gradients.h"
#include "ops/cc/optimizers.h"
#include "ops/cc/scope.h"
#include "ops/cc/variables.h"
#include "pybind11/stl.h"
#include "python/src/numpy_tensor.h"
#include "python/src/status_error.h"
#include "runtime/graph_def_io.h"
#include "runtime/op_registry.h"

namespace minitf::python {
namespace py = pybind11;

namespace {

// An output as Python's Tensor holds it: (node, index, DataType enum).
py::tuple OutputTuple(const Output& o) {
  return py::make_tuple(o.node_name(), o.index(), static_cast<int>(o.type()));
}

Output OutputFrom(const py::handle& h) {
  auto t = h.cast<py::tuple>();
  return Output(t[0].cast<std::string>(), t[1].cast<int>(), static_cast<DataType>(t[2].cast<int>()));
}

bool IsOutputTuple(const py::handle& h) {
  return py::isinstance<py::tuple>(h) && py::len(h) == 3 && py::isinstance<py::str>(h[py::int_(0)]);
}

// An op argument: an output, or a constant (an array) the builder converts.
Input InputFrom(const py::handle& h, const std::string& what) {
  if (IsOutputTuple(h)) return OutputFrom(h);
  absl::StatusOr<Tensor> t = TensorFromArray(h, what);
  ThrowIfError(t.status());
  return *t;
}

PartialTensorShape ShapeFrom(const py::handle& h) {
  if (h.is_none()) return PartialTensorShape::Unknown();
  std::vector<int64_t> dims;
  for (const py::handle& d : h) dims.push_back(d.is_none() ? -1 : d.cast<int64_t>());
  return PartialTensorShape(dims);
}

// A Python value as the attr type the op definition gives.
AttrValue AttrFrom(const std::string& type, const py::handle& v, const std::string& what) {
  if (type == "type") return static_cast<DataType>(v.cast<int>());
  if (type == "int") return v.cast<int64_t>();
  if (type == "float") return v.cast<float>();
  if (type == "bool") return v.cast<bool>();
  if (type == "string") return v.cast<std::string>();
  if (type == "shape") return ShapeFrom(v);
  if (type == "tensor") {
    absl::StatusOr<Tensor> t = TensorFromArray(v, what);
    ThrowIfError(t.status());
    return *t;
  }
  if (type == "list(int)") return v.cast<std::vector<int64_t>>();
  if (type == "list(float)") return v.cast<std::vector<float>>();
  if (type == "list(bool)") return v.cast<std::vector<bool>>();
  if (type == "list(string)") return v.cast<std::vector<std::string>>();
  if (type == "list(type)") {
    std::vector<DataType> types;
    for (int t : v.cast<std::vector<int>>()) types.push_back(static_cast<DataType>(t));
    return types;
  }
  if (type == "list(shape)") {
    std::vector<PartialTensorShape> shapes;
    for (const py::handle& s : v) shapes.push_back(ShapeFrom(s));
    return shapes;
  }
  throw StatusError(absl::UnimplementedError(
      absl::StrCat(what, ": attrs of type ", type, " are not settable from Python")));
}

class PyGraph {
 public:
  PyGraph() : root_(Scope::NewRootScope()) {}

  // `base`, or `base_1`, ... whichever no node has.
  std::string UniqueName(const std::string& base) const { return root_.UniqueName(base); }

  // Adds a node of `op` named exactly `name`; `args` has one entry per input
  // arg of the op (a list for list args). Returns its outputs.
  py::list AddOp(const std::string& op, const std::string& name, const py::list& args,
                 const py::dict& attrs, const std::vector<std::string>& control_inputs,
                 const std::string& device) {
    absl::StatusOr<const OpDef*> def = OpRegistry::Global()->LookUpOrError(op);
    ThrowIfError(def.status());
    if (py::len(args) != (*def)->input_arg.size()) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("Node '", name, "' (op '", op, "'): expected ",
                       (*def)->input_arg.size(), " inputs, got ", py::len(args))));
    }
    OpBuilder builder(ScopeFor(name, control_inputs, device), op);
    for (size_t i = 0; i < (*def)->input_arg.size(); ++i) {
      const OpDef::ArgDef& arg = (*def)->input_arg[i];
      const std::string what = absl::StrCat("Node '", name, "' input '", arg.name, "'");
      if (arg.number_attr.empty() && arg.type_list_attr.empty()) {
        builder.Input(InputFrom(args[i], what));
        continue;
      }
      std::vector<Output> list;
      for (const py::handle& item : args[i]) {
        Input in = InputFrom(item, what);
        list.push_back(in.is_constant() ? ConstFromTensor(root_, in.constant()) : in.output());
      }
      builder.InputList(list);
    }
    for (const auto& [key, value] : attrs) {
      const std::string attr = py::str(key);
      const OpDef::AttrDef* attr_def = nullptr;
      for (const OpDef::AttrDef& a : (*def)->attr) {
        if (a.name == attr) attr_def = &a;
      }
      if (attr_def == nullptr) {
        throw StatusError(absl::InvalidArgumentError(
            absl::StrCat("Node '", name, "' (op '", op, "'): no attr named '", attr, "'")));
      }
      builder.Attr(attr, AttrFrom(attr_def->type, value,
                                  absl::StrCat("Node '", name, "' attr '", attr, "'")));
    }
    std::vector<Output> outputs = builder.Finalize();
    CheckScope();
    py::list out;
    for (const Output& o : outputs) out.append(OutputTuple(o));
    return out;
  }

  // tf.gradients: one entry per x, None where no y depends on it.
  py::list Gradients(const py::list& ys, const py::list& xs, const py::list& grad_ys) {
    std::vector<Output> y, x, dy, dx;
    for (const py::handle& h : ys) y.push_back(OutputFrom(h));
    for (const py::handle& h : xs) x.push_back(OutputFrom(h));
    for (const py::handle& h : grad_ys) dy.push_back(OutputFrom(h));
    absl::Status s = dy.empty() ? AddSymbolicGradients(root_, y, x, &dx)
                                : AddSymbolicGradients(root_, y, x, dy, &dx);
    if (!s.ok()) Recover();
    ThrowIfError(s);
    CheckScope();
    py::list out;
    for (const Output& o : dx) out.append(o.valid() ? py::object(OutputTuple(o)) : py::none());
    return out;
  }

  // A ref variable and its initialiser; returns its output.
  py::tuple NewVariable(const std::string& name, const py::handle& shape, int dtype,
                        const py::handle& initial_value, bool trainable) {
    Input init = InputFrom(initial_value, absl::StrCat("Variable '", name, "' initial value"));
    Output v = ops::NewVariable(root_.WithOpName(name), ShapeFrom(shape),
                                static_cast<DataType>(dtype), init, {.trainable = trainable});
    CheckScope();
    return OutputTuple(v);
  }

  py::list Variables(bool trainable_only) const {
    py::list out;
    for (const Output& o : trainable_only ? ops::TrainableVariables(root_)
                                          : ops::GlobalVariables(root_)) {
      out.append(OutputTuple(o));
    }
    return out;
  }

  std::string GlobalVariablesInitializer(const std::string& name) {
    Output init = ops::GlobalVariablesInitializer(root_.WithOpName(name));
    CheckScope();
    return init.node_name();
  }

  // optimizer.minimize(loss, var_list): the training op's node name.
  std::string Minimize(const std::string& kind, const py::dict& params, const py::tuple& loss,
                       const py::list& var_list, const std::string& name) {
    std::unique_ptr<ops::Optimizer> optimizer = MakeOptimizer(kind, params);
    std::vector<Output> vars;
    for (const py::handle& h : var_list) vars.push_back(OutputFrom(h));
    Output train;
    absl::Status s = optimizer->Minimize(root_.NewSubScope(name), OutputFrom(loss), vars, &train);
    if (!s.ok()) Recover();
    ThrowIfError(s);
    CheckScope();
    return train.node_name();
  }

  // Makes data input `index` of `node` read `value` (a while loop's back
  // edge, NextIteration -> Merge, closed once the body is built).
  void UpdateInput(const std::string& node, int index, const py::tuple& value) {
    ThrowIfError(root_.UpdateInput(node, index, OutputFrom(value)));
  }

  int num_nodes() const { return static_cast<int>(root_.graph_def().node.size()); }

  // The nodes from `start` on, as a serialized GraphDef (Session.extend).
  py::bytes SerializeFrom(int start) const {
    GraphDef part;
    const std::vector<NodeDef>& nodes = root_.graph_def().node;
    for (size_t i = static_cast<size_t>(start); i < nodes.size(); ++i) part.node.push_back(nodes[i]);
    return py::bytes(SerializeBinaryGraphDef(part));
  }
  std::string Text() const { return SerializeTextGraphDef(root_.graph_def()); }

 private:
  static std::unique_ptr<ops::Optimizer> MakeOptimizer(const std::string& kind,
                                                       const py::dict& p) {
    auto get = [&](const char* key, float fallback) {
      return p.contains(key) ? p[key].cast<float>() : fallback;
    };
    auto flag = [&](const char* key) { return p.contains(key) && p[key].cast<bool>(); };
    if (kind == "GradientDescent") {
      return std::make_unique<ops::GradientDescentOptimizer>(
          ops::GradientDescentOptions{get("learning_rate", 0.01f), flag("use_locking")});
    }
    if (kind == "Momentum") {
      return std::make_unique<ops::MomentumOptimizer>(ops::MomentumOptions{
          get("learning_rate", 0.01f), get("momentum", 0.9f), flag("use_nesterov"),
          flag("use_locking")});
    }
    if (kind == "Adam") {
      ops::AdamOptions o;
      o.learning_rate = get("learning_rate", o.learning_rate);
      o.beta1 = get("beta1", o.beta1);
      o.beta2 = get("beta2", o.beta2);
      o.epsilon = get("epsilon", o.epsilon);
      return std::make_unique<ops::AdamOptimizer>(o);
    }
    throw StatusError(absl::InvalidArgumentError(absl::StrCat("no optimizer '", kind, "'")));
  }

  Scope ScopeFor(const std::string& name, const std::vector<std::string>& control_inputs,
                 const std::string& device) const {
    Scope s = root_.WithOpName(name);
    if (!control_inputs.empty()) {
      std::vector<Output> deps;
      for (const std::string& c : control_inputs) deps.push_back(Output::ForNode(c));
      s = s.WithControlDependencies(deps);
    }
    return device.empty() ? s : s.WithDevice(device);
  }

  // A Scope keeps its first error for good; Python goes on after one, so
  // the graph moves to a fresh scope holding the same nodes and collections.
  void Recover() {
    Scope fresh = Scope::NewRootScope();
    for (const NodeDef& n : root_.graph_def().node) fresh.AddNode(n);
    for (const char* key :
         {ops::kGlobalVariables, ops::kTrainableVariables, ops::kVariableInitializers}) {
      for (const Output& o : root_.GetCollection(key)) fresh.AddToCollection(key, o);
    }
    root_ = fresh;
  }

  void CheckScope() {
    absl::Status s = root_.status();
    if (s.ok()) return;
    Recover();
    throw StatusError(s);
  }

  Scope root_;
};

// Every registered op's interface, for the generated op functions.
py::list OpDefs() {
  py::list out;
  for (const std::string& name : OpRegistry::Global()->ListOpNames()) {
    const OpDef* def = OpRegistry::Global()->LookUp(name);
    py::list inputs, attrs;
    for (const OpDef::ArgDef& a : def->input_arg) {
      inputs.append(py::make_tuple(a.name, !a.number_attr.empty() || !a.type_list_attr.empty()));
    }
    for (const OpDef::AttrDef& a : def->attr) {
      attrs.append(py::make_tuple(a.name, a.type, a.default_value.has_value()));
    }
    out.append(py::make_tuple(name, inputs, attrs, static_cast<int>(def->output_arg.size()),
                              def->is_stateful));
  }
  return out;
}

}  // namespace

void DefineGraph(py::module_& module) {
  module.def("op_defs", &OpDefs,
             "Every registered op: (name, [(input, is_list)], [(attr, type, has_default)], "
             "number of outputs, is_stateful).");
  py::class_<PyGraph>(module, "Graph", "A graph under construction (a Scope).")
      .def(py::init<>())
      .def("unique_name", &PyGraph::UniqueName, py::arg("base"))
      .def("add_op", &PyGraph::AddOp, py::arg("op"), py::arg("name"), py::arg("args"),
           py::arg("attrs"), py::arg("control_inputs"), py::arg("device"),
           "Adds a node; returns its outputs as (node, index, dtype).")
      .def("gradients", &PyGraph::Gradients, py::arg("ys"), py::arg("xs"), py::arg("grad_ys"))
      .def("new_variable", &PyGraph::NewVariable, py::arg("name"), py::arg("shape"),
           py::arg("dtype"), py::arg("initial_value"), py::arg("trainable"))
      .def("variables", &PyGraph::Variables, py::arg("trainable_only"))
      .def("global_variables_initializer", &PyGraph::GlobalVariablesInitializer,
           py::arg("name"))
      .def("minimize", &PyGraph::Minimize, py::arg("kind"), py::arg("params"), py::arg("loss"),
           py::arg("var_list"), py::arg("name"))
      .def("update_input", &PyGraph::UpdateInput, py::arg("node"), py::arg("index"),
           py::arg("value"))
      .def("num_nodes", &PyGraph::num_nodes)
      .def("serialize_from", &PyGraph::SerializeFrom, py::arg("start"),
           "The nodes from `start` on, as a serialized GraphDef.")
      .def("text", &PyGraph::Text, "The GraphDef in text format.");
}

}  // namespace minitf::python
