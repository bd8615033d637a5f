#include "runtime/kernel_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/memory_types.h"
#include "runtime/node_def_util.h"
#include "runtime/op_registry.h"

namespace minitf {

namespace {

std::string TypeList(const std::vector<DataType>& types) {
  return absl::StrJoin(types, ", ", [](std::string* out, DataType t) {
    absl::StrAppend(out, DataTypeString(t));
  });
}

// True when every constraint of `kernel` is met by the node's attrs.
bool Matches(const KernelDef& kernel, const NodeDef& def) {
  for (const auto& [attr, allowed] : kernel.constraints) {
    DataType dt;
    if (!GetNodeAttr(def, attr, &dt).ok()) return false;
    if (std::find(allowed.begin(), allowed.end(), dt) == allowed.end()) return false;
  }
  return true;
}

}  // namespace

std::string KernelDef::DebugString() const {
  std::string out = absl::StrCat("device='", device_type, "'");
  for (const auto& [attr, allowed] : constraints) {
    absl::StrAppend(&out, "; ", attr, " in [", TypeList(allowed), "]");
  }
  if (!platform.empty()) absl::StrAppend(&out, "; platform='", platform, "'");
  if (priority != 0) absl::StrAppend(&out, "; priority=", priority);
  return out;
}

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* const registry = new KernelRegistry();
  return registry;
}

void KernelRegistry::Register(KernelDef def, std::string class_name, KernelFactory factory) {
  auto registration = std::make_unique<KernelRegistration>();
  std::string op = def.op;
  registration->def = std::move(def);
  registration->class_name = std::move(class_name);
  registration->factory = std::move(factory);
  MutexLock lock(&mu_);
  kernels_[op].push_back(std::move(registration));
}

void KernelRegistry::RegisterDeferred(DeferredRegistrar registrar) {
  deferred_.push_back(std::move(registrar));
}

void KernelRegistry::RunDeferred() const {
  absl::call_once(deferred_once_, [this] {
    std::vector<const KernelRegistration*> registered;
    {
      MutexLock lock(&mu_);
      for (const auto& [op, regs] : kernels_) {
        for (const auto& reg : regs) registered.push_back(reg.get());
      }
    }
    // Registration is the one mutation lookups allow: see RegisterDeferred.
    auto* self = const_cast<KernelRegistry*>(this);
    for (const DeferredRegistrar& registrar : deferred_) registrar(self, registered);
  });
}

std::vector<std::string> KernelRegistry::Ops() const {
  RunDeferred();
  MutexLock lock(&mu_);
  std::vector<std::string> ops;
  for (const auto& [op, regs] : kernels_) ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

absl::StatusOr<const KernelRegistration*> KernelRegistry::FindKernel(
    const std::string& device_type, const NodeDef& def, const std::string& platform) const {
  RunDeferred();
  MutexLock lock(&mu_);
  const KernelRegistration* best = nullptr;
  bool tie = false;
  auto it = kernels_.find(def.op);
  if (it != kernels_.end()) {
    for (const auto& reg : it->second) {
      if (reg->def.device_type != device_type || !Matches(reg->def, def)) continue;
      if (!reg->def.platform.empty() && reg->def.platform != platform) continue;
      if (best == nullptr || reg->def.priority > best->def.priority) {
        best = reg.get();
        tie = false;
      } else if (reg->def.priority == best->def.priority) {
        tie = true;
      }
    }
  }
  if (best != nullptr && !tie) return best;
  std::string attrs = absl::StrJoin(def.attr, ", ", [](std::string* out, const auto& kv) {
    if (kv.second.template Holds<DataType>()) {
      absl::StrAppend(out, kv.first, "=", DataTypeString(kv.second.type()));
    }
  });
  std::string registered = "<no registered kernels>";
  if (it != kernels_.end()) {
    registered = absl::StrJoin(it->second, "\n  ", [](std::string* out, const auto& reg) {
      absl::StrAppend(out, reg->def.DebugString());
    });
  }
  if (tie) {
    return absl::InternalError(absl::StrCat(
        "Node '", def.name, "': several kernels of equal priority match op '", def.op,
        "' on device ", device_type, " with attrs [", attrs, "]; registered:\n  ",
        registered));
  }
  return absl::NotFoundError(absl::StrCat("No registered kernel for node '", def.name,
                                          "' (op '", def.op, "') on device ", device_type,
                                          platform.empty() ? "" : absl::StrCat(" (", platform, ")"),
                                          " with attrs [", attrs, "]. Registered:\n  ",
                                          registered));
}

std::vector<const KernelRegistration*> KernelRegistry::KernelsForOp(
    const std::string& op) const {
  RunDeferred();
  MutexLock lock(&mu_);
  std::vector<const KernelRegistration*> out;
  auto it = kernels_.find(op);
  if (it == kernels_.end()) return out;
  for (const auto& reg : it->second) out.push_back(reg.get());
  return out;
}

std::vector<std::string> KernelRegistry::DeviceTypesForOp(const std::string& op) const {
  std::vector<std::string> types;
  for (const KernelRegistration* reg : KernelsForOp(op)) {
    if (std::find(types.begin(), types.end(), reg->def.device_type) == types.end()) {
      types.push_back(reg->def.device_type);
    }
  }
  return types;
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(const std::string& device_type,
                                                         DeviceBase* device,
                                                         const NodeDef& def) {
  const OpDef* op_def = OpRegistry::Global()->LookUp(def.op);
  if (op_def == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("Node '", def.name, "': op type not registered: '", def.op, "'"));
  }
  auto reg = KernelRegistry::Global()->FindKernel(device_type, def, device->platform_name());
  if (!reg.ok()) return reg.status();
  DataTypeVector inputs, outputs;
  if (absl::Status s = InOutTypesForNode(def, *op_def, &inputs, &outputs); !s.ok()) {
    return AttachNodeName(s, def);
  }
  MemoryTypeVector input_memory, output_memory;
  if (absl::Status s = MemoryTypesForKernel((*reg)->def, def, *op_def, inputs, outputs,
                                            &input_memory, &output_memory);
      !s.ok()) {
    return s;
  }
  OpKernelConstruction construction(device_type, device, &def, op_def, std::move(inputs),
                                    std::move(outputs), std::move(input_memory),
                                    std::move(output_memory));
  std::unique_ptr<OpKernel> kernel = (*reg)->factory(&construction);
  if (!construction.status().ok()) {
    return AttachNodeName(construction.status(), def);
  }
  return kernel;
}

}  // namespace minitf
