// The SimGPU cost model: how long a kernel or a copy takes on a simulated
// device with the throughput figures of SimGPUOptions.
//
//   kernel time   = launch_latency
//                 + flops        / (tflops    * 10^12 flop/s * compute(family))
//                 + device_bytes / (hbm_gbps  * 10^9 byte/s  * memory(family))
//                 + host_bytes   / (pcie_gbps * 10^9 byte/s)
//
// compute and memory are the efficiencies of the kernel's family
// (KernelCost::family) in the GPU profile options.gpu names
// (sim_gpu_profile.h); 1 for every family of v100, the default.
//   transfer time = bytes / (pcie_gbps * 10^9)   host <-> device copies
//                 = bytes / (hbm_gbps  * 10^9)   device -> device, memset
//
// The terms add (no overlap of arithmetic and memory traffic): a simple,
// pessimistic model that makes every kernel's cost predictable. Each term is
// converted to an absl::Duration on its own (nanoseconds from a double) and
// the Durations are summed, so the result is a pure function of its inputs:
// timing-mode utilisation accounting, which adds these values, is exact.
//
//   absl::Duration t = ModeledKernelTime(options, {.flops = 2e9});
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_COST_MODEL_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_COST_MODEL_H_

#include <cstdint>

#include "absl/time/time.h"
#include "stream/kernel.h"
#include "stream/sim_gpu/sim_gpu_options.h"

namespace minitf::se {

absl::Duration ModeledKernelTime(const SimGPUOptions& options, const KernelCost& cost);

// The SMs `cost`'s kernel fills when it runs alone on a device of
// `sm_count` SMs: its blocks over the blocks one SM holds, at least a
// hundredth of an SM, at most every SM; every SM when its blocks are
// unknown (0).
double KernelWidth(const KernelCost& cost, int sm_count);

// A copy (or memset) of `bytes`; `crosses_pcie` for host <-> device copies.
absl::Duration ModeledTransferTime(const SimGPUOptions& options, uint64_t bytes,
                                   bool crosses_pcie);

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_COST_MODEL_H_
