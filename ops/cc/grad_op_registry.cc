#include "ops/cc/grad_op_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/op_registry.h"

namespace minitf {
namespace {

// The types of `def`'s outputs.
absl::Status OutputTypes(const NodeDef& def, DataTypeVector* out) {
  const OpDef* op_def = OpRegistry::Global()->LookUp(def.op);
  if (op_def == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("Node '", def.name, "': op '", def.op, "' is not registered"));
  }
  DataTypeVector in;
  return AttachNodeName(InOutTypesForNode(def, *op_def, &in, out), def);
}

}  // namespace

absl::StatusOr<Operation> Operation::Create(const Scope& scope, const std::string& name) {
  const NodeDef* def = scope.FindNode(name);
  if (def == nullptr) {
    return absl::NotFoundError(absl::StrCat("No node named '", name, "' in the graph"));
  }
  Operation op;
  op.node_ = *def;  // A copy: gradient functions add nodes, which moves the graph's.
  DataTypeVector types;
  if (absl::Status s = OutputTypes(op.node_, &types); !s.ok()) return s;
  for (size_t i = 0; i < types.size(); ++i) {
    op.outputs_.emplace_back(name, static_cast<int>(i), types[i]);
  }
  for (const std::string& input : op.node_.input) {
    absl::StatusOr<TensorId> id = ParseTensorName(input);
    if (!id.ok()) return AttachNodeName(id.status(), op.node_);
    if (id->IsControl()) continue;
    const NodeDef* src = scope.FindNode(id->node);
    if (src == nullptr) {
      return absl::NotFoundError(absl::StrCat("Node '", name, "': input '", input,
                                              "' names no node of the graph"));
    }
    DataTypeVector src_types;
    if (absl::Status s = OutputTypes(*src, &src_types); !s.ok()) return s;
    if (id->index >= static_cast<int>(src_types.size())) {
      return absl::InvalidArgumentError(absl::StrCat("Node '", name, "': input '", input,
                                                     "' names output ", id->index, " of a node with ",
                                                     src_types.size()));
    }
    op.inputs_.emplace_back(id->node, id->index, src_types[id->index]);
  }
  return op;
}

GradOpRegistry* GradOpRegistry::Global() {
  static GradOpRegistry* registry = new GradOpRegistry;
  return registry;
}

bool GradOpRegistry::Register(const std::string& op, GradFunc fn) {
  MutexLock lock(&mu_);
  fns_[op] = fn;
  return true;
}

absl::Status GradOpRegistry::Lookup(const std::string& op, GradFunc* fn) const {
  MutexLock lock(&mu_);
  auto it = fns_.find(op);
  if (it == fns_.end()) {
    return absl::NotFoundError(absl::StrCat("No gradient defined for op: ", op));
  }
  *fn = it->second;
  return absl::OkStatus();
}

std::vector<std::string> GradOpRegistry::RegisteredOps() const {
  MutexLock lock(&mu_);
  std::vector<std::string> ops;
  for (const auto& [name, fn] : fns_) ops.push_back(name);
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace minitf
