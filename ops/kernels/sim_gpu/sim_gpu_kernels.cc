// Registers the SimGPU kernels: for every CPU kernel of an op that computes
// something, a SimGPUOpKernel twin on DEVICE_GPU for the SimGPU platform,
// with the CPU kernel's type constraints, host-memory args and priority.
// Internal ops (names starting with '_': _Arg, _Retval, _Send, _Recv and
// test ops) and the control-flow ops stay on the CPU (the partitioner
// connects them to GPU nodes with _Send/_Recv); Placeholder and NoOp have
// one GPU kernel for every platform, which does no device work.
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ops/kernels/sim_gpu/sim_gpu_op_kernel.h"
#include "runtime/kernel_registry.h"

namespace minitf {
namespace {

constexpr char kSimGPU[] = "SimGPU";

bool StaysOnCpu(const std::string& op) {
  static const auto* const kCpuOnly =
      new absl::flat_hash_set<std::string>{"Placeholder", "NoOp",          "Switch", "Merge",
                                           "Enter",       "Exit",          "NextIteration",
                                           "LoopCond"};
  return op.empty() || op[0] == '_' || kCpuOnly->contains(op);
}

void RegisterSimGPUKernels(KernelRegistry* registry,
                           const std::vector<const KernelRegistration*>& registered) {
  for (const KernelRegistration* reg : registered) {
    if (reg->def.device_type != DEVICE_CPU || StaysOnCpu(reg->def.op)) continue;
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
