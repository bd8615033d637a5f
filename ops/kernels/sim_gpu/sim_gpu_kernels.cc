// Registers the SimGPU kernels: for every CPU kernel of an op that computes
// something, a SimGPUOpKernel twin on DEVICE_GPU for the SimGPU platform,
// with the CPU kernel's type constraints, host-memory args and priority.
// Not twinned:
//   - internal ops (names starting with '_': _Arg, _Retval, _Send, _Recv
//     and test ops), which stay on the CPU or have GPU kernels of their own;
//   - ops that already have a GPU kernel for SimGPU or for every GPU
//     platform: those that only forward or reshape a buffer (Identity,
//     Reshape, Shape, the control-flow ops), copy a value once (Const) or do
//     no device work (NoOp, Placeholder).
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ops/kernels/sim_gpu/sim_gpu_op_kernel.h"
#include "runtime/kernel_registry.h"

namespace minitf {
namespace {

constexpr char kSimGPU[] = "SimGPU";

void RegisterSimGPUKernels(KernelRegistry* registry,
                           const std::vector<const KernelRegistration*>& registered) {
  absl::flat_hash_set<std::string> has_gpu_kernel;
  for (const KernelRegistration* reg : registered) {
    const KernelDef& def = reg->def;
    if (def.device_type == DEVICE_GPU && (def.platform.empty() || def.platform == kSimGPU)) {
      has_gpu_kernel.insert(def.op);
    }
  }
  for (const KernelRegistration* reg : registered) {
    const std::string& op = reg->def.op;
    if (reg->def.device_type != DEVICE_CPU || op.empty() || op[0] == '_' ||
        has_gpu_kernel.contains(op)) {
      continue;
    }
    KernelDef def = reg->def;
    def.device_type = DEVICE_GPU;
    def.platform = kSimGPU;
    registry->Register(std::move(def), "SimGPUOpKernel(" + reg->class_name + ")",
                       [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
                         return std::make_unique<SimGPUOpKernel>(ctx);
                       });
  }
}

struct SimGPUKernelsRegistrar {
  SimGPUKernelsRegistrar() { KernelRegistry::Global()->RegisterDeferred(RegisterSimGPUKernels); }
};
SimGPUKernelsRegistrar registrar;

}  // namespace
}  // namespace minitf
