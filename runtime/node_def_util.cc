#include "runtime/node_def_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace minitf {

namespace {

absl::Status WrongKind(const NodeDef& def, absl::string_view name, const AttrValue& v,
                       absl::string_view expected) {
  return absl::InvalidArgumentError(absl::StrCat("Node '", def.name, "': attr '", name,
                                                 "' has type ", v.TypeName(),
                                                 ", expected ", expected));
}

absl::StatusOr<const AttrValue*> Find(const NodeDef& def, absl::string_view name) {
  auto it = def.attr.find(std::string(name));
  if (it == def.attr.end()) {
    return absl::NotFoundError(absl::StrCat("Node '", def.name, "' (op '", def.op,
                                            "'): attr '", name, "' not found"));
  }
  return &it->second;
}

template <typename Stored, typename T>
absl::Status GetSimple(const NodeDef& def, absl::string_view name, T* value,
                       absl::string_view kind) {
  auto found = Find(def, name);
  if (!found.ok()) return found.status();
  const AttrValue& v = **found;
  if (!v.Holds<Stored>()) return WrongKind(def, name, v, kind);
  *value = static_cast<T>(v.Get<Stored>());
  return absl::OkStatus();
}

}  // namespace

bool HasNodeAttr(const NodeDef& def, absl::string_view name) {
  return def.attr.find(std::string(name)) != def.attr.end();
}

absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, int64_t* value) {
  return GetSimple<int64_t>(def, name, value, "int");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, int32_t* value) {
  return GetSimple<int64_t>(def, name, value, "int");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, float* value) {
  return GetSimple<float>(def, name, value, "float");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, bool* value) {
  return GetSimple<bool>(def, name, value, "bool");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, DataType* value) {
  return GetSimple<DataType>(def, name, value, "type");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, std::string* value) {
  return GetSimple<std::string>(def, name, value, "string");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         PartialTensorShape* value) {
  return GetSimple<PartialTensorShape>(def, name, value, "shape");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, TensorShape* value) {
  PartialTensorShape partial;
  if (absl::Status s = GetNodeAttr(def, name, &partial); !s.ok()) return s;
  if (!partial.IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat("Node '", def.name, "': attr '", name,
                                                   "' must be a fully defined shape, got ",
                                                   partial.DebugString()));
  }
  absl::StatusOr<TensorShape> shape = TensorShape::Build(partial.dim_sizes());
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("Node '", def.name, "': attr '", name,
                                                   "': ", shape.status().message()));
  }
  *value = *std::move(shape);
  return absl::OkStatus();
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, Tensor* value) {
  return GetSimple<Tensor>(def, name, value, "tensor");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<int64_t>* value) {
  return GetSimple<std::vector<int64_t>>(def, name, value, "list(int)");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<int32_t>* value) {
  std::vector<int64_t> wide;
  if (absl::Status s = GetNodeAttr(def, name, &wide); !s.ok()) return s;
  value->assign(wide.begin(), wide.end());
  return absl::OkStatus();
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<float>* value) {
  return GetSimple<std::vector<float>>(def, name, value, "list(float)");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<DataType>* value) {
  return GetSimple<std::vector<DataType>>(def, name, value, "list(type)");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<std::string>* value) {
  return GetSimple<std::vector<std::string>>(def, name, value, "list(string)");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<PartialTensorShape>* value) {
  return GetSimple<std::vector<PartialTensorShape>>(def, name, value, "list(shape)");
}
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, std::vector<bool>* value) {
  return GetSimple<std::vector<bool>>(def, name, value, "list(bool)");
}

void AddDefaultsToNodeDef(const OpDef& op_def, NodeDef* def) {
  for (const OpDef::AttrDef& attr : op_def.attr) {
    if (attr.default_value && !HasNodeAttr(*def, attr.name)) {
      def->attr[attr.name] = *attr.default_value;
    }
  }
}

absl::Status ValidateNodeDefAttrs(const NodeDef& def, const OpDef& op_def) {
  auto error = [&](auto&&... parts) {
    return absl::InvalidArgumentError(
        absl::StrCat("Node '", def.name, "' (op '", def.op, "'): ", parts...));
  };
  for (const auto& [name, value] : def.attr) {
    // Attrs starting with '_' are annotations the runtime may add.
    if (!name.empty() && name[0] == '_') continue;
    if (op_def.FindAttr(name) == nullptr) {
      return error("unknown attr '", name, "'");
    }
  }
  for (const OpDef::AttrDef& attr : op_def.attr) {
    auto it = def.attr.find(attr.name);
    if (it == def.attr.end()) return error("missing attr '", attr.name, "'");
    const AttrValue& v = it->second;
    if (v.TypeName() != attr.type) {
      return error("attr '", attr.name, "' has type ", v.TypeName(), ", expected ",
                   attr.type);
    }
    if (attr.type == "type" && !attr.allowed_values.empty() &&
        std::find(attr.allowed_values.begin(), attr.allowed_values.end(), v.type()) ==
            attr.allowed_values.end()) {
      return error("attr '", attr.name, "' = ", DataTypeString(v.type()),
                   " is not in the allowed list {",
                   absl::StrJoin(attr.allowed_values, ", ",
                                 [](std::string* out, DataType t) {
                                   absl::StrAppend(out, DataTypeString(t));
                                 }),
                   "}");
    }
    if (attr.minimum && v.i() < *attr.minimum) {
      return error("attr '", attr.name, "' = ", v.i(), " is below its minimum ",
                   *attr.minimum);
    }
  }
  return absl::OkStatus();
}

namespace {

// The longest list an arg may be (an int attr such as AddN's N, Unpack's
// num, Split's num_split): far more than any real graph has, and small
// enough that a hostile count is refused before anything is allocated.
constexpr int64_t kMaxListLength = int64_t{1} << 20;

// Appends the types of `args` (the op's inputs when `inputs`, else its
// outputs). A list-length attr above kMaxListLength, or (for inputs of a
// node that lists them) above the node's data inputs, is InvalidArgument.
absl::Status AddArgTypes(const NodeDef& def, const std::vector<OpDef::ArgDef>& args, bool inputs,
                         DataTypeVector* types) {
  for (const OpDef::ArgDef& arg : args) {
    if (!arg.type_list_attr.empty()) {
      DataTypeVector list;
      if (absl::Status s = GetNodeAttr(def, arg.type_list_attr, &list); !s.ok()) return s;
      for (DataType dt : list) types->push_back(arg.is_ref ? MakeRefType(dt) : dt);
      continue;
    }
    DataType dt = arg.type;
    if (!arg.type_attr.empty()) {
      if (absl::Status s = GetNodeAttr(def, arg.type_attr, &dt); !s.ok()) return s;
    }
    int64_t count = 1;
    if (!arg.number_attr.empty()) {
      if (absl::Status s = GetNodeAttr(def, arg.number_attr, &count); !s.ok()) return s;
      if (count > kMaxListLength) {
        return absl::InvalidArgumentError(
            absl::StrCat("attr '", arg.number_attr, "' = ", count, " (the length of ",
                         inputs ? "input" : "output", " list '", arg.name,
                         "') is more than the ", kMaxListLength, " minitf allows"));
      }
      const int64_t listed = NumDataInputs(def);
      if (inputs && !def.input.empty() &&
          static_cast<int64_t>(types->size()) + count > listed) {
        return absl::InvalidArgumentError(absl::StrCat(
            "attr '", arg.number_attr, "' = ", count, " asks input list '", arg.name,
            "' for more inputs than the node's ", listed));
      }
    }
    if (arg.is_ref) dt = MakeRefType(dt);
    for (int64_t i = 0; i < count; ++i) types->push_back(dt);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status InOutTypesForNode(const NodeDef& def, const OpDef& op_def,
                               DataTypeVector* inputs, DataTypeVector* outputs) {
  inputs->clear();
  outputs->clear();
  if (absl::Status s = AddArgTypes(def, op_def.input_arg, /*inputs=*/true, inputs); !s.ok()) {
    return s;
  }
  return AddArgTypes(def, op_def.output_arg, /*inputs=*/false, outputs);
}

int NumDataInputs(const NodeDef& def) {
  int n = 0;
  for (const std::string& in : def.input) {
    if (in.empty() || in[0] != '^') ++n;
  }
  return n;
}

absl::Status AttachNodeName(const absl::Status& status, const NodeDef& def) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("Node '", def.name, "' (op '", def.op,
                                                  "'): ", status.message()));
}

}  // namespace minitf
