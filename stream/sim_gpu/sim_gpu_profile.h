// GpuProfile: the figures of a real GPU that SimGPU models (the `gpu=` key
// of the option string): peak throughputs, host link, launch latency, SM
// count, memory size, and per op family (KernelFamily, stream/kernel.h) the
// fraction of the peaks that minitf's kernels reach on that card.
//
//   const GpuProfile& h100 = GetGpuProfile(GpuModel::kH100);
//   h100.tflops;                                        // 67
//   h100.efficiency[int(KernelFamily::kConvForward)];   // fitted to ncu
//
// The figures and their sources are in sim_gpu_profile.cc and in
// docs/SIMGPU.md ("GPU profiles"). v100, the default, has every efficiency
// 1 (the plain roofline SimGPU always had); h100's are fitted to minitf's
// own kernels measured with Nsight Compute on an H100 80GB.
#ifndef MINITF_STREAM_SIM_GPU_SIM_GPU_PROFILE_H_
#define MINITF_STREAM_SIM_GPU_SIM_GPU_PROFILE_H_

#include <array>
#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"
#include "stream/kernel.h"

namespace minitf::se {

enum class GpuModel { kV100, kA100, kH100 };

// The fraction of the peak a family's kernels reach: their flops run at
// tflops * compute, their device bytes move at hbm_gbps * memory. Both in
// (0, 1]; 1 is the roofline.
struct FamilyEfficiency {
  double compute = 1;
  double memory = 1;

  bool operator==(const FamilyEfficiency&) const = default;
};

struct GpuProfile {
  GpuModel model;
  absl::string_view name;  // The option value: "v100", "a100", "h100".
  absl::string_view card;  // The card it models, as NVIDIA names it.
  double tflops;           // FP32 peak without tensor cores, 10^12 flop/s.
  double hbm_gbps;         // Device-memory bandwidth, 10^9 byte/s.
  double pcie_gbps;        // Effective host <-> device bandwidth, 10^9 byte/s.
  double launch_us;        // The least time a kernel takes, microseconds.
  int sm_count;            // Streaming multiprocessors.
  int64_t memory_bytes;    // Device memory.
  // Indexed by KernelFamily.
  std::array<FamilyEfficiency, kKernelFamilyCount> efficiency;

  const FamilyEfficiency& EfficiencyOf(KernelFamily family) const {
    return efficiency[static_cast<int>(family)];
  }
};

const GpuProfile& GetGpuProfile(GpuModel model);

// The model a `gpu=` value names (case-insensitive); nullopt for none.
std::optional<GpuModel> GpuModelFromName(absl::string_view name);
// "v100", "a100", "h100".
absl::string_view GpuModelName(GpuModel model);

}  // namespace minitf::se

#endif  // MINITF_STREAM_SIM_GPU_SIM_GPU_PROFILE_H_
