#include "stream/sim_gpu/sim_gpu_profile.h"

#include "absl/strings/match.h"

namespace minitf::se {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

constexpr std::array<FamilyEfficiency, kKernelFamilyCount> kRoofline = {};

// NVIDIA Tesla V100-PCIe 16 GB, the GPU of the AntMan paper (Xiao et al.,
// OSDI 2020), SimGPU's figures since its first version:
//   tflops 15.7   NVIDIA Tesla V100 datasheet (2018), single precision.
//                 That is the SXM2 figure (80 SMs x 64 FP32 lanes x 2 x
//                 1.53 GHz); the PCIe card boosts to 1.38 GHz, 14 TFLOP/s.
//                 Kept, so every modeled time stays what it was.
//   hbm 900       same datasheet, HBM2.
//   pcie 12       PCIe 3.0 x16, 15.75 GB/s theoretical; ~12 GB/s is what
//                 pinned cudaMemcpy reaches (CUDA bandwidthTest).
//   launch 5      the usual kernel launch overhead quoted for CUDA.
//   80 SMs        NVIDIA Tesla V100 GPU Architecture whitepaper (GV100,
//                 80 of 84 SMs enabled on V100).
//   16 GiB        the card's memory.
// Efficiencies: 1, the roofline (nothing measured on a V100).
constexpr GpuProfile kV100 = {
    .model = GpuModel::kV100,
    .name = "v100",
    .card = "NVIDIA Tesla V100-PCIe 16 GB",
    .tflops = 15.7,
    .hbm_gbps = 900,
    .pcie_gbps = 12,
    .launch_us = 5,
    .sm_count = 80,
    .memory_bytes = 16 * kGiB,
    .efficiency = kRoofline,
};

// The efficiencies fitted to minitf's kernels on an H100 80GB HBM3 (SXM5):
// tests/fixtures/gpu/h100_resnet50/resnet50_kernels_ncu.txt, Nsight
// Compute's gpu__time_duration of every kernel of the init and one training
// step of tests/fixtures/tf/resnet50_train (batch 32), minitf at commit
// bd1ba84, summed per family in tests/fixtures/gpu/h100_resnet50/families.json
// (which says where cuDNN's layout conversions went). For each family:
//   efficiency = roofline time / (measured time - modeled launch time),
// the roofline time being SimGPU's modeled time of the family's kernels in
// that step at efficiency 1 with the h100 peaks, less their launch terms
// (n x 2.7 us; SimGPU launches as many kernels per family as the card did).
// The convolutions and matmul are compute bound: their figure is `compute`,
// `memory` stays 1; the others are memory bound: their figure is `memory`.
//   family                 kernels  roofline us (C + B)  measured us  efficiency
//   conv_forward              53     3904.1 + 863.8        12141.0    compute 0.351
//   conv_backprop_input       53     3904.1 + 863.8        20952.5    compute 0.196
//   conv_backprop_filter      53     3904.1 + 863.8        14024.6    compute 0.300
//   matmul                     3        5.9 + 7.7             37.4    compute 0.272 (*)
//   elementwise              844       16.1 + 3395.3        7345.3    memory  0.672
//   reduction                  2        0.0 + 4.0             13.4    memory  0.497 (*)
//   pooling                    2        1.7 + 115.0          402.1    memory  0.291
// (*) a few microseconds of one layer: a weak fit. Families without a
// measurement worth fitting take the elementwise memory figure: batch norm
// (the measured BatchNorm kernels are an implementation rewritten since),
// softmax (one kernel of 4.7 us, all launch), data movement (the step's
// copies are cudaMemcpy, which ncu does not list) and other.
constexpr FamilyEfficiency kH100ElementwiseMemory = {.compute = 1, .memory = 0.672};
constexpr std::array<FamilyEfficiency, kKernelFamilyCount> kH100Fitted = {
    /*conv_forward=*/FamilyEfficiency{.compute = 0.351, .memory = 1},
    /*conv_backprop_input=*/FamilyEfficiency{.compute = 0.196, .memory = 1},
    /*conv_backprop_filter=*/FamilyEfficiency{.compute = 0.300, .memory = 1},
    /*matmul=*/FamilyEfficiency{.compute = 0.272, .memory = 1},
    /*elementwise=*/kH100ElementwiseMemory,
    /*reduction=*/FamilyEfficiency{.compute = 1, .memory = 0.497},
    /*pooling=*/FamilyEfficiency{.compute = 1, .memory = 0.291},
    /*batch_norm=*/kH100ElementwiseMemory,
    /*softmax=*/kH100ElementwiseMemory,
    /*data_movement=*/kH100ElementwiseMemory,
    /*other=*/kH100ElementwiseMemory,
};

// NVIDIA A100-SXM4 80 GB:
//   tflops 19.5   NVIDIA A100 Tensor Core GPU datasheet (2021), FP32.
//   hbm 2039      same datasheet, HBM2e, 80 GB SXM.
//   pcie 25       PCIe 4.0 x16, 31.5 GB/s theoretical; ~25 GB/s effective
//                 for pinned copies.
//   launch 2.7    the kernel floor measured on the H100 (below): no A100
//                 measurement.
//   108 SMs       NVIDIA A100 Tensor Core GPU Architecture whitepaper
//                 (GA100, 108 of 128 SMs enabled on A100).
//   80 GiB        the card's memory.
// Efficiencies: the H100's fitted ones, unmeasured on an A100. The kernels
// measured on the H100 are cuDNN's and cuBLAS's sm80 (Ampere) kernels, so
// the A100's own are the best guess there is.
constexpr GpuProfile kA100 = {
    .model = GpuModel::kA100,
    .name = "a100",
    .card = "NVIDIA A100-SXM4 80 GB",
    .tflops = 19.5,
    .hbm_gbps = 2039,
    .pcie_gbps = 25,
    .launch_us = 2.7,
    .sm_count = 108,
    .memory_bytes = 80 * kGiB,
    .efficiency = kH100Fitted,
};

// NVIDIA H100-SXM5 80 GB (nvidia-smi: "NVIDIA H100 80GB HBM3"):
//   tflops 67     NVIDIA H100 Tensor Core GPU datasheet (2023), FP32, SXM.
//   hbm 3350      same datasheet, HBM3, SXM.
//   pcie 50       PCIe 5.0 x16, 63 GB/s theoretical; ~50 GB/s effective
//                 for pinned copies.
//   launch 2.7    measured: the least duration of minitf's kernels on the
//                 card (the ncu file above: 212 Sub kernels on tensors of at
//                 most 8 KB, 2.7 us each; Fill 2.8 us).
//   132 SMs       NVIDIA H100 Tensor Core GPU Architecture whitepaper
//                 (GH100, 132 SMs on H100 SXM5).
//   80 GiB        the card's memory.
constexpr GpuProfile kH100 = {
    .model = GpuModel::kH100,
    .name = "h100",
    .card = "NVIDIA H100-SXM5 80 GB",
    .tflops = 67,
    .hbm_gbps = 3350,
    .pcie_gbps = 50,
    .launch_us = 2.7,
    .sm_count = 132,
    .memory_bytes = 80 * kGiB,
    .efficiency = kH100Fitted,
};

constexpr const GpuProfile* kProfiles[] = {&kV100, &kA100, &kH100};

}  // namespace

const GpuProfile& GetGpuProfile(GpuModel model) {
  for (const GpuProfile* profile : kProfiles) {
    if (profile->model == model) return *profile;
  }
  return kV100;
}

std::optional<GpuModel> GpuModelFromName(absl::string_view name) {
  for (const GpuProfile* profile : kProfiles) {
    if (absl::EqualsIgnoreCase(profile->name, name)) return profile->model;
  }
  return std::nullopt;
}

absl::string_view GpuModelName(GpuModel model) { return GetGpuProfile(model).name; }

}  // namespace minitf::se
