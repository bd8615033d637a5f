#include "ops/cc/scope.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "runtime/node_def_util.h"
#include "runtime/op_registry.h"

namespace minitf {

struct Scope::Graph {
  GraphDef def;
  absl::flat_hash_set<std::string> names;
  absl::flat_hash_map<std::string, size_t> index;  // node name -> position in def.node
  absl::flat_hash_map<std::string, std::vector<Output>> collections;
  absl::Status status;
};

std::string Output::name() const {
  return index_ <= 0 ? node_ : absl::StrCat(node_, ":", index_);
}

Input::Input(std::initializer_list<int> v) {
  std::vector<int32_t> values(v.begin(), v.end());
  constant_ = Tensor::FromVector<int32_t>(absl::Span<const int32_t>(values),
                                          TensorShape({static_cast<int64_t>(values.size())}));
}

Scope Scope::NewRootScope() {
  Scope s;
  s.graph_ = std::make_shared<Graph>();
  return s;
}

Scope Scope::WithOpName(std::string name) const {
  Scope s = *this;
  s.op_name_ = std::move(name);
  return s;
}

Scope Scope::NewSubScope(std::string name) const {
  Scope s = *this;
  s.op_name_.clear();
  if (!name.empty()) s.prefix_ = absl::StrCat(prefix_, name, "/");
  return s;
}

Scope Scope::NewUniqueSubScope(const std::string& base, std::string* full_name) const {
  std::string name = base;
  for (int i = 1; graph_->names.contains(absl::StrCat(prefix_, name)); ++i) {
    name = absl::StrCat(base, "_", i);
  }
  *full_name = absl::StrCat(prefix_, name);
  graph_->names.insert(*full_name);
  return NewSubScope(name);
}

Scope Scope::WithNoControlDependencies() const {
  Scope s = *this;
  s.control_deps_.clear();
  return s;
}

Scope Scope::WithDevice(std::string device) const {
  Scope s = *this;
  s.device_ = std::move(device);
  return s;
}

Scope Scope::WithControlDependencies(const std::vector<Output>& deps) const {
  Scope s = *this;
  for (const Output& d : deps) s.control_deps_.push_back(absl::StrCat("^", d.node_name()));
  return s;
}

absl::Status Scope::status() const { return graph_->status; }

void Scope::UpdateStatus(const absl::Status& s) const {
  if (graph_->status.ok() && !s.ok()) graph_->status = s;
}

absl::Status Scope::ToGraphDef(GraphDef* out) const {
  if (!graph_->status.ok()) return graph_->status;
  *out = graph_->def;
  return absl::OkStatus();
}

const GraphDef& Scope::graph_def() const { return graph_->def; }

const NodeDef* Scope::FindNode(const std::string& name) const {
  auto it = graph_->index.find(name);
  return it == graph_->index.end() ? nullptr : &graph_->def.node[it->second];
}

void Scope::AddToCollection(const std::string& key, const Output& value) const {
  graph_->collections[key].push_back(value);
}

std::vector<Output> Scope::GetCollection(const std::string& key) const {
  auto it = graph_->collections.find(key);
  return it == graph_->collections.end() ? std::vector<Output>() : it->second;
}

std::string Scope::NameForNewOp(const std::string& default_name) const {
  if (!op_name_.empty()) return absl::StrCat(prefix_, op_name_);
  return UniqueName(absl::StrCat(prefix_, default_name));
}

std::string Scope::UniqueName(const std::string& base) const {
  std::string name = base;
  for (int i = 1; graph_->names.contains(name); ++i) name = absl::StrCat(base, "_", i);
  return name;
}

void Scope::AddNode(NodeDef def) const {
  if (!graph_->names.insert(def.name).second) {
    UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("Duplicate node name '", def.name, "' in the graph being built")));
    return;
  }
  graph_->index[def.name] = graph_->def.node.size();
  graph_->def.node.push_back(std::move(def));
}

absl::Status Scope::UpdateInput(const std::string& node, int index, const Output& value) const {
  for (NodeDef& def : graph_->def.node) {
    if (def.name != node) continue;
    int data = 0;
    for (std::string& input : def.input) {
      if (!input.empty() && input[0] == '^') continue;
      if (data++ == index) {
        input = value.name();
        return absl::OkStatus();
      }
    }
    return absl::InvalidArgumentError(
        absl::StrCat("Node '", node, "' has no data input ", index));
  }
  return absl::NotFoundError(absl::StrCat("No node named '", node, "' in the graph being built"));
}

namespace {

absl::Status UnallocatedConstant(const Tensor& value) {
  return absl::InvalidArgumentError(
      absl::StrCat("the constant value (type ", DataTypeString(value.dtype()), ", shape ",
                   value.shape().DebugString(), ") has no buffer: its allocation failed"));
}

// `value` converted to `dtype` (literals such as the 2 of Mul(x, 2)).
absl::StatusOr<Tensor> ConvertConstant(const Tensor& value, DataType dtype) {
  if (!value.IsInitialized()) return UnallocatedConstant(value);
  if (value.dtype() == dtype) return value;
  absl::StatusOr<Tensor> converted = Tensor::Allocate(cpu_allocator(), dtype, value.shape());
  if (!converted.ok()) {
    return absl::Status(converted.status().code(),
                        absl::StrCat("converting a constant to ", DataTypeString(dtype), ": ",
                                     converted.status().message()));
  }
  Tensor& out = *converted;
  bool ok = true;
  MINITF_SWITCH_ALL_TYPES(value.dtype(), From, ok = false, {
    auto src = value.flat<From>();
    MINITF_SWITCH_ALL_TYPES(dtype, To, ok = false, {
      auto dst = out.flat<To>();
      for (int64_t i = 0; i < src.size(); ++i) dst(i) = static_cast<To>(src(i));
    });
  });
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat("cannot convert a constant of type ",
                                                   DataTypeString(value.dtype()), " to ",
                                                   DataTypeString(dtype)));
  }
  return out;
}

}  // namespace

namespace {
Output AddConst(const Scope& scope, std::string name, const Tensor& value);
}  // namespace

Output ConstFromTensor(const Scope& scope, const Tensor& value) {
  return AddConst(scope, scope.NameForNewOp("Const"), value);
}

namespace {

Output AddConst(const Scope& scope, std::string name, const Tensor& value) {
  if (!value.IsInitialized()) {
    absl::Status s = UnallocatedConstant(value);
    scope.UpdateStatus(
        absl::Status(s.code(), absl::StrCat("Node '", name, "' (op 'Const'): ", s.message())));
    return Output();
  }
  NodeDef def;
  def.name = std::move(name);
  def.op = "Const";
  def.device = scope.device();
  def.attr["dtype"] = value.dtype();
  def.attr["value"] = value;
  for (const std::string& dep : scope.control_deps()) def.input.push_back(dep);
  scope.AddNode(def);
  return Output(def.name, 0, value.dtype());
}

}  // namespace

OpBuilder::OpBuilder(const Scope& scope, std::string op) : scope_(scope) {
  def_.op = std::move(op);
  def_.name = scope_.NameForNewOp(def_.op);
  def_.device = scope_.device();
}

OpBuilder& OpBuilder::Input(const ::minitf::Input& input) {
  args_.push_back(Arg{{input}, false});
  return *this;
}

OpBuilder& OpBuilder::InputList(const std::vector<Output>& inputs) {
  Arg arg;
  arg.is_list = true;
  for (const Output& o : inputs) arg.values.emplace_back(o);
  args_.push_back(std::move(arg));
  return *this;
}

OpBuilder& OpBuilder::ControlInput(const Output& dep) {
  control_inputs_.push_back(absl::StrCat("^", dep.node_name()));
  return *this;
}

OpBuilder& OpBuilder::Attr(const std::string& name, AttrValue value) {
  def_.attr[name] = std::move(value);
  return *this;
}

std::vector<Output> OpBuilder::Finalize() {
  if (!scope_.ok()) return {};
  auto fail = [&](absl::string_view message,
                  absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
    scope_.UpdateStatus(
        absl::Status(code, absl::StrCat("Node '", def_.name, "' (op '", def_.op, "'): ", message)));
    return std::vector<Output>();
  };
  const OpDef* op_def = OpRegistry::Global()->LookUp(def_.op);
  if (op_def == nullptr) return fail("op type not registered");
  if (args_.size() != op_def->input_arg.size()) {
    return fail(absl::StrCat("expected ", op_def->input_arg.size(), " input args, got ",
                             args_.size()));
  }
  // Pass 1: type and length attrs from the non-constant inputs.
  for (size_t i = 0; i < args_.size(); ++i) {
    const OpDef::ArgDef& arg = op_def->input_arg[i];
    if (!arg.number_attr.empty() && !def_.attr.count(arg.number_attr)) {
      def_.attr[arg.number_attr] = static_cast<int64_t>(args_[i].values.size());
    }
    if (!arg.type_list_attr.empty() && !def_.attr.count(arg.type_list_attr)) {
      DataTypeVector types;
      for (const ::minitf::Input& in : args_[i].values) {
        types.push_back(in.is_constant() ? in.constant().dtype()
                                         : RemoveRefType(in.output().type()));
      }
      def_.attr[arg.type_list_attr] = types;
    }
    if (arg.type_attr.empty() || def_.attr.count(arg.type_attr)) continue;
    for (const ::minitf::Input& in : args_[i].values) {
      if (!in.is_constant()) {
        def_.attr[arg.type_attr] = RemoveRefType(in.output().type());
        break;
      }
    }
  }
  // Pass 2: constants become Const nodes of the type the arg needs.
  std::vector<Output> inputs;
  DataTypeVector expected;
  for (size_t i = 0; i < args_.size(); ++i) {
    const OpDef::ArgDef& arg = op_def->input_arg[i];
    const DataTypeVector* list_types = nullptr;
    if (auto it = def_.attr.find(arg.type_list_attr);
        !arg.type_list_attr.empty() && it != def_.attr.end() &&
        it->second.Holds<DataTypeVector>()) {
      list_types = &it->second.Get<DataTypeVector>();
    }
    for (size_t j = 0; j < args_[i].values.size(); ++j) {
      const ::minitf::Input& in = args_[i].values[j];
      DataType want = arg.type;
      if (!arg.type_attr.empty()) {
        auto it = def_.attr.find(arg.type_attr);
        if (it != def_.attr.end() && it->second.Holds<DataType>()) want = it->second.type();
      }
      if (list_types != nullptr && j < list_types->size()) want = (*list_types)[j];
      if (in.is_constant()) {
        if (want == DT_INVALID) {
          want = in.constant().dtype();
          if (!arg.type_attr.empty()) def_.attr[arg.type_attr] = want;
        }
        auto converted = ConvertConstant(in.constant(), want);
        if (!converted.ok()) {
          return fail(absl::StrCat("arg '", arg.name, "': ", converted.status().message()),
                      converted.status().code());
        }
        inputs.push_back(AddConst(scope_, scope_.UniqueName(def_.name + "/" + arg.name),
                                  *converted));
      } else {
        inputs.push_back(in.output());
      }
      expected.push_back(arg.is_ref ? MakeRefType(want) : want);
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const DataType have = inputs[i].type();
    const DataType want = expected[i];
    if (want != DT_INVALID && have != want &&
        !(IsRefType(have) && RemoveRefType(have) == want)) {
      return fail(absl::StrCat("input ", i, " ('", inputs[i].name(), "') has type ",
                               DataTypeString(have), ", expected ", DataTypeString(want)));
    }
    def_.input.push_back(inputs[i].name());
  }
  for (const std::string& dep : scope_.control_deps()) def_.input.push_back(dep);
  for (const std::string& dep : control_inputs_) def_.input.push_back(dep);
  AddDefaultsToNodeDef(*op_def, &def_);
  if (absl::Status s = ValidateNodeDefAttrs(def_, *op_def); !s.ok()) {
    scope_.UpdateStatus(s);
    return {};
  }
  DataTypeVector in_types, out_types;
  if (absl::Status s = InOutTypesForNode(def_, *op_def, &in_types, &out_types); !s.ok()) {
    scope_.UpdateStatus(AttachNodeName(s, def_));
    return {};
  }
  std::vector<Output> outputs;
  for (size_t i = 0; i < out_types.size(); ++i) {
    outputs.emplace_back(def_.name, static_cast<int>(i), out_types[i]);
  }
  scope_.AddNode(def_);
  if (!scope_.ok()) return {};
  return outputs;
}

Output OpBuilder::Finalize1() {
  std::vector<Output> outputs = Finalize();
  return outputs.empty() ? Output() : outputs[0];
}

}  // namespace minitf

namespace minitf {

Output OpBuilder::FinalizeNode() {
  Finalize();
  if (!scope_.ok()) return Output();
  return Output::ForNode(def_.name);
}

}  // namespace minitf
