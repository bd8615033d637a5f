#include "runtime/op_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "platform/logging.h"

namespace minitf {

OpRegistry* OpRegistry::Global() {
  static OpRegistry* const registry = new OpRegistry();
  return registry;
}

absl::Status OpRegistry::Register(const OpDefBuilder& builder) {
  absl::StatusOr<OpDef> def = builder.Finalize();
  absl::Status status = def.status();
  MutexLock lock(&mu_);
  if (status.ok() && ops_.contains(def->name)) {
    status = absl::AlreadyExistsError(
        absl::StrCat("REGISTER_OP(\"", def->name, "\"): op registered twice"));
  }
  if (!status.ok()) {
    errors_.emplace_back(status.message());
    return status;
  }
  std::string name = def->name;
  ops_.emplace(std::move(name), std::make_unique<const OpDef>(*std::move(def)));
  return absl::OkStatus();
}

const OpDef* OpRegistry::LookUp(absl::string_view op_name) const {
  MutexLock lock(&mu_);
  auto it = ops_.find(op_name);
  return it == ops_.end() ? nullptr : it->second.get();
}

absl::StatusOr<const OpDef*> OpRegistry::LookUpOrError(absl::string_view op_name) const {
  const OpDef* def = LookUp(op_name);
  if (def == nullptr) {
    return absl::NotFoundError(absl::StrCat("Op type not registered: '", op_name, "'"));
  }
  return def;
}

std::vector<std::string> OpRegistry::ListOpNames() const {
  MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, def] : ops_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> OpRegistry::registration_errors() const {
  MutexLock lock(&mu_);
  return errors_;
}

namespace register_op {
OpDefBuilderReceiver::OpDefBuilderReceiver(const OpDefBuilder& builder) {
  absl::Status s = OpRegistry::Global()->Register(builder);
  if (!s.ok()) LOG(ERROR, "{}", s.message());
}
}  // namespace register_op

}  // namespace minitf
