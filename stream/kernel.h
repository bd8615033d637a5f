// HostKernel: a kernel whose arithmetic runs on the host CPU, launched on a
// Stream of the Host or SimGPU platform (Stream::LaunchHostKernel).
//
// On SimGPU the launch takes the device's single compute engine, runs `body`
// (unless the platform is in timing-only mode) and holds the engine for the
// time the cost model gives `cost` (see sim_gpu_options.h), so kernels of
// every stream and session on that device execute one at a time.
//
//   HostKernel k;
//   k.name = "MatMul";
//   k.cost = {.flops = 2.0 * m * n * k, .device_bytes = bytes_in + bytes_out};
//   k.body = [=] { ... Eigen on device memory ...; return absl::OkStatus(); };
//   MINITF_RETURN_IF_ERROR(stream->LaunchHostKernel(std::move(k)));
#ifndef MINITF_STREAM_KERNEL_H_
#define MINITF_STREAM_KERNEL_H_

#include <array>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace minitf::se {

// The op family of a kernel: the SimGPU cost model applies a per-family
// efficiency of the GPU profile (sim_gpu_profile.h) to its flops and bytes,
// and the engine accounts busy time per family.
enum class KernelFamily {
  kConvForward,         // Conv2D
  kConvBackpropInput,   // Conv2DBackpropInput
  kConvBackpropFilter,  // Conv2DBackpropFilter
  kMatMul,              // MatMul, BatchMatMul, the SimGPU gemm
  kElementwise,         // unary, binary, BiasAdd, ReluGrad, Fill, optimizer updates
  kReduction,           // Sum, Mean, Max, BiasAddGrad, ...
  kPooling,             // MaxPool, AvgPool and their gradients
  kBatchNorm,           // FusedBatchNorm* and their gradients
  kSoftmax,             // Softmax, LogSoftmax, the cross-entropies
  kDataMovement,        // Transpose, Concat, Slice, Pad, Tile, Gather, copies
  kOther,               // everything else (the default)
};
inline constexpr int kKernelFamilyCount = static_cast<int>(KernelFamily::kOther) + 1;

// "conv_forward", "conv_backprop_input", "conv_backprop_filter", "matmul",
// "elementwise", "reduction", "pooling", "batch_norm", "softmax",
// "data_movement", "other".
constexpr absl::string_view KernelFamilyName(KernelFamily family) {
  constexpr std::array<absl::string_view, kKernelFamilyCount> kNames = {
      "conv_forward", "conv_backprop_input", "conv_backprop_filter", "matmul",
      "elementwise",  "reduction",           "pooling",              "batch_norm",
      "softmax",      "data_movement",       "other"};
  return kNames[static_cast<int>(family)];
}

// What a kernel costs, the input of the SimGPU cost model.
struct KernelCost {
  double flops = 0;
  // Bytes read and written in device memory.
  double device_bytes = 0;
  // Bytes read and written in host memory (operands that VMem placed on the
  // host): they move at PCIe bandwidth.
  double host_bytes = 0;
  // Last, so {flops, device_bytes, host_bytes} still reads as it did.
  KernelFamily family = KernelFamily::kOther;
  // The thread blocks the CUDA kernel launches (0: unknown, enough to fill
  // any GPU) and how many of them one SM holds at once: what SimGPU's SM
  // model makes the kernel's width of (sim_gpu_sm_pool.h).
  int64_t blocks = 0;
  int blocks_per_sm = 8;
};

struct HostKernel {
  std::string name;
  KernelCost cost;
  // The arithmetic. An error puts the stream into its error state.
  std::function<absl::Status()> body;
  // Run `body` even on a platform that skips the arithmetic (SimGPU's timing
  // mode): set by kernels whose body does bookkeeping later kernels need —
  // a Variable handing out its buffer, an output whose shape is only known
  // by running.
  bool run_in_timing_mode = false;
  // Asked after `body` succeeded: false when the kernel refused its inputs
  // and did no arithmetic (its own error fails its node, not the stream).
  // The engine then holds for none of the modeled time, as a CUDA kernel
  // whose checks fail on the host is never launched. Unset: it did the work.
  std::function<bool()> did_work;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_KERNEL_H_
