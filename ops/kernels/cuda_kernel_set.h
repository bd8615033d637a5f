// The CUDA kernel set: every (op, type constraints, HostMemory arguments)
// the CUDA platform has a GPU kernel for (ops/kernels/cuda/), as one list
// that does not need the CUDA toolkit to read. SimGPU registers exactly
// these by default (sim_gpu/sim_gpu_kernels.cc), so a graph places on
// SimGPU as it would on a CUDA GPU; a test built with CUDA
// (tests/cuda/cuda_kernel_set_test.cc) checks that the CUDA registrations
// are this list, op by op and dtype by dtype. Adding a CUDA kernel means
// adding its line here.
//
//   for (const KernelDef& def : CudaKernelSet()) { ... def.op ... }
//
// The ops every GPU platform shares (Const, Identity, Reshape, Shape, the
// control-flow ops, _Send/_Recv: registered without Platform()) are not in
// the list; they are GPU kernels on CUDA and SimGPU alike.
#ifndef MINITF_OPS_KERNELS_CUDA_KERNEL_SET_H_
#define MINITF_OPS_KERNELS_CUDA_KERNEL_SET_H_

#include <map>
#include <string>
#include <vector>

#include "runtime/kernel_registry.h"

namespace minitf {

// One KernelDef per CUDA registration: device GPU, no platform, priority 0.
const std::vector<KernelDef>& CudaKernelSet();

// A kernel def spelled out per dtype: one entry per combination of its
// constraints' dtypes, "Op T=float Tidx=int32 host=[reduction_indices]",
// sorted. Two lists of defs cover the same kernels exactly when these are
// equal.
std::vector<std::string> ExpandKernelDefs(const std::vector<KernelDef>& defs);

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_CUDA_KERNEL_SET_H_
