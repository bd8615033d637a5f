#include "stream/sim_gpu/sim_gpu_cost_model.h"

#include <algorithm>

#include "stream/sim_gpu/sim_gpu_profile.h"

namespace minitf::se {
namespace {

// `amount` units at `giga_per_second` * 10^9 units per second.
absl::Duration AtRate(double amount, double giga_per_second) {
  return absl::Nanoseconds(amount / giga_per_second);
}

}  // namespace

absl::Duration ModeledKernelTime(const SimGPUOptions& options, const KernelCost& cost) {
  const FamilyEfficiency& efficiency = GetGpuProfile(options.gpu).EfficiencyOf(cost.family);
  return absl::Nanoseconds(options.launch_latency_us * 1e3) +
         AtRate(cost.flops, options.tflops * 1e3 * efficiency.compute) +
         AtRate(cost.device_bytes, options.hbm_gbps * efficiency.memory) +
         AtRate(cost.host_bytes, options.pcie_gbps);
}

absl::Duration ModeledTransferTime(const SimGPUOptions& options, uint64_t bytes,
                                   bool crosses_pcie) {
  return AtRate(static_cast<double>(bytes), crosses_pcie ? options.pcie_gbps : options.hbm_gbps);
}

double KernelWidth(const KernelCost& cost, int sm_count) {
  const double sms = std::max(sm_count, 1);
  if (cost.blocks <= 0) return sms;
  const double per_sm = std::max(cost.blocks_per_sm, 1);
  return std::clamp(static_cast<double>(cost.blocks) / per_sm, 0.01, sms);
}

}  // namespace minitf::se
