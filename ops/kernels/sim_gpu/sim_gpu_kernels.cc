// Registers the SimGPU kernels: SimGPUOpKernel twins of CPU kernels on
// DEVICE_GPU for the SimGPU platform. Which twins depends on the process's
// SimGPU kernel set (SimGPUKernelSetOfProcess, from MINITF_SIMGPU):
//   - kernels=cuda (the default): exactly the CUDA kernel set
//     (ops/kernels/cuda_kernel_set.h), each with its type constraints and
//     HostMemory arguments, so a graph places on SimGPU as it would on a
//     CUDA GPU and an op CUDA lacks runs on the CPU here too;
//   - kernels=all: a twin of every CPU kernel of an op that computes
//     something, with the CPU kernel's type constraints and priority.
// Never twinned: internal ops (names starting with '_': _Arg, _Retval,
// _Send, _Recv and test ops), and ops with a GPU kernel of their own for
// SimGPU or for every GPU platform: those that only forward or reshape a
// buffer (Identity, Reshape, Shape, the control-flow ops), copy a value once
// (Const) or do no device work (NoOp, Placeholder).
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ops/kernels/cuda_kernel_set.h"
#include "ops/kernels/sim_gpu/sim_gpu_op_kernel.h"
#include "runtime/kernel_registry.h"
#include "stream/sim_gpu/sim_gpu_options.h"

namespace minitf {
namespace {

constexpr char kSimGPU[] = "SimGPU";

std::unique_ptr<OpKernel> MakeSimGPUKernel(OpKernelConstruction* ctx) {
  return std::make_unique<SimGPUOpKernel>(ctx);
}

void RegisterSimGPUKernels(KernelRegistry* registry,
                           const std::vector<const KernelRegistration*>& registered) {
  absl::flat_hash_set<std::string> has_gpu_kernel;
  // Op -> its first CPU registration.
  absl::flat_hash_map<std::string, const KernelRegistration*> cpu_kernel;
  for (const KernelRegistration* reg : registered) {
    const KernelDef& def = reg->def;
    if (def.device_type == DEVICE_GPU && (def.platform.empty() || def.platform == kSimGPU)) {
      has_gpu_kernel.insert(def.op);
    }
    if (def.device_type == DEVICE_CPU && !def.op.empty()) cpu_kernel.try_emplace(def.op, reg);
  }
  auto twin = [&](KernelDef def, const KernelRegistration& cpu) {
    if (has_gpu_kernel.contains(def.op)) return;
    def.device_type = DEVICE_GPU;
    def.platform = kSimGPU;
    registry->Register(std::move(def), "SimGPUOpKernel(" + cpu.class_name + ")",
                       MakeSimGPUKernel);
  };
  if (se::SimGPUKernelSetOfProcess() == se::SimGPUOptions::KernelSet::kAll) {
    // Every op but the runtime's own (_Send, _Arg, ...): of the internal
    // ops, those CUDA's set has (the remapper's _FusedMatMul, ...).
    absl::flat_hash_set<std::string> cuda_ops;
    for (const KernelDef& def : CudaKernelSet()) cuda_ops.insert(def.op);
    for (const KernelRegistration* reg : registered) {
      const std::string& op = reg->def.op;
      if (reg->def.device_type != DEVICE_CPU || op.empty()) continue;
      if (op[0] == '_' && !cuda_ops.contains(op)) continue;
      twin(reg->def, *reg);
    }
    return;
  }
  // CUDA's set. An entry without a CPU kernel to wrap is left out (a test
  // checks that every entry has one).
  for (const KernelDef& def : CudaKernelSet()) {
    auto cpu = cpu_kernel.find(def.op);
    if (cpu == cpu_kernel.end()) continue;
    KernelDef with_priority = def;
    with_priority.priority = cpu->second->def.priority;
    twin(std::move(with_priority), *cpu->second);
  }
}

struct SimGPUKernelsRegistrar {
  SimGPUKernelsRegistrar() { KernelRegistry::Global()->RegisterDeferred(RegisterSimGPUKernels); }
};
SimGPUKernelsRegistrar registrar;

}  // namespace
}  // namespace minitf
