// The kernel registry: which OpKernel class computes which op on which device
// type for which attr values, filled by REGISTER_KERNEL_BUILDER.
//
//   REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//                           MatMulOp<float>);
//
// Lookup picks, among the kernels of the node's op and device type whose type
// constraints the node's attrs satisfy (and, for kernels registered with
// Platform(), whose stream platform is the device's: a GPU device on SimGPU
// and one on CUDA run different kernels for the same op), the one with the
// highest Priority();
// two matches of equal priority are an error. Each REGISTER_KERNEL_BUILDER is
// one static object whose constructor calls KernelRegistry::Global()->Register.
// Thread-safe.
#ifndef MINITF_RUNTIME_KERNEL_REGISTRY_H_
#define MINITF_RUNTIME_KERNEL_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "platform/mutex.h"
#include "runtime/graph_def.h"
#include "runtime/op_kernel.h"
#include "runtime/types.h"

namespace minitf {

struct KernelDef {
  std::string op;
  std::string device_type;
  // attr name -> the values that attr may take for this kernel.
  std::vector<std::pair<std::string, std::vector<DataType>>> constraints;
  // Args kept in host memory on devices with memory of their own.
  std::vector<std::string> host_memory_args;
  // The stream platform ("SimGPU", "CUDA") the kernel is for; empty: any.
  std::string platform;
  int priority = 0;

  std::string DebugString() const;
};

class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(const char* op_name) { def_.op = op_name; }
  KernelDefBuilder& Device(const char* device_type) {
    def_.device_type = device_type;
    return *this;
  }
  template <typename T>
  KernelDefBuilder& TypeConstraint(const char* attr_name) {
    return TypeConstraint(attr_name, std::vector<DataType>{DataTypeToEnum<T>::value});
  }
  KernelDefBuilder& TypeConstraint(const char* attr_name, std::vector<DataType> allowed) {
    def_.constraints.emplace_back(attr_name, std::move(allowed));
    return *this;
  }
  KernelDefBuilder& HostMemory(const char* arg_name) {
    def_.host_memory_args.emplace_back(arg_name);
    return *this;
  }
  KernelDefBuilder& Platform(const char* platform) {
    def_.platform = platform;
    return *this;
  }
  KernelDefBuilder& Priority(int priority) {
    def_.priority = priority;
    return *this;
  }
  KernelDef Build() const { return def_; }

 private:
  KernelDef def_;
};

using KernelFactory = std::function<std::unique_ptr<OpKernel>(OpKernelConstruction*)>;

struct KernelRegistration {
  KernelDef def;
  std::string class_name;
  KernelFactory factory;
};

class KernelRegistry {
 public:
  // Construct-on-first-use; never destroyed.
  static KernelRegistry* Global();

  void Register(KernelDef def, std::string class_name, KernelFactory factory);

  // Runs `registrar` once, at the first lookup, when every static
  // REGISTER_KERNEL_BUILDER has run, with the registrations made so far:
  // for kernels derived from others (the SimGPU kernels wrap the CPU ones,
  // copying their constraints). The registrar may call Register only.
  // REQUIRES: called during static initialisation, before any lookup.
  using DeferredRegistrar = std::function<void(
      KernelRegistry* registry, const std::vector<const KernelRegistration*>& registered)>;
  void RegisterDeferred(DeferredRegistrar registrar);

  // The best kernel for `def` on `device_type` (on a device of stream
  // platform `platform`, "" for none). NotFound names the node, op, device
  // and attrs, and lists what is registered for the op.
  absl::StatusOr<const KernelRegistration*> FindKernel(const std::string& device_type,
                                                      const NodeDef& def,
                                                      const std::string& platform = "") const;
  // Every registration for `op` (any device), for messages and tests.
  std::vector<const KernelRegistration*> KernelsForOp(const std::string& op) const;
  // The names of every op with at least one kernel, sorted.
  std::vector<std::string> Ops() const;
  // The device types that have at least one kernel for `op`.
  std::vector<std::string> DeviceTypesForOp(const std::string& op) const;

 private:
  // Runs the deferred registrars, once.
  void RunDeferred() const;

  mutable absl::once_flag deferred_once_;
  std::vector<DeferredRegistrar> deferred_;  // Written during static init only.
  mutable Mutex mu_;
  // op name -> registrations. Registrations are never removed, so pointers
  // to them stay valid.
  absl::flat_hash_map<std::string, std::vector<std::unique_ptr<KernelRegistration>>> kernels_
      ABSL_GUARDED_BY(mu_);
};

namespace register_kernel {

// `Name("Op")` in REGISTER_KERNEL_BUILDER resolves here.
inline KernelDefBuilder Name(const char* op_name) { return KernelDefBuilder(op_name); }

struct KernelRegistrar {
  KernelRegistrar(KernelDef def, const char* class_name, KernelFactory factory) {
    KernelRegistry::Global()->Register(std::move(def), class_name, std::move(factory));
  }
};

}  // namespace register_kernel

#define MINITF_REGISTER_KERNEL_UNIQ_(ctr, kernel_builder, ...)                          \
  static ::minitf::register_kernel::KernelRegistrar minitf_kernel_registrar_##ctr      \
      [[maybe_unused]](                                                                 \
          ::minitf::register_kernel::kernel_builder.Build(), #__VA_ARGS__,              \
          [](::minitf::OpKernelConstruction* ctx) -> std::unique_ptr<::minitf::OpKernel> { \
            return std::make_unique<__VA_ARGS__>(ctx);                                  \
          })
#define MINITF_REGISTER_KERNEL_IMPL_(ctr, kernel_builder, ...) \
  MINITF_REGISTER_KERNEL_UNIQ_(ctr, kernel_builder, __VA_ARGS__)
#define REGISTER_KERNEL_BUILDER(kernel_builder, ...) \
  MINITF_REGISTER_KERNEL_IMPL_(__COUNTER__, kernel_builder, __VA_ARGS__)

// Creates the kernel registered for `def` on `device_type`. Errors name the
// node, op, device and the attrs.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(const std::string& device_type,
                                                         DeviceBase* device,
                                                         const NodeDef& def);

}  // namespace minitf

#endif  // MINITF_RUNTIME_KERNEL_REGISTRY_H_
