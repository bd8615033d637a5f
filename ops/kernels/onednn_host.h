// oneDNN on the host, what its users share: whether it is on, how it is
// capped, its threads. oneDNN is the library TensorFlow's x86 builds run
// their float matrix products and convolutions through; its JIT kernels
// target the widest vector unit the processor has (AVX-512, AVX2), chosen
// when the process runs. Its users: the float matrix products
// (cpu_gemm.h) and convolutions (onednn_conv.h).
//
//   if (OneDnnEnabled()) {
//     PrepareOneDnnCall(/*threads=*/1);
//     ... a oneDNN call on this thread ...
//   }
//
// On unless TF_ENABLE_ONEDNN_OPTS is 0 or false (TensorFlow's switch; read
// once, a value that is not a boolean is logged and the default, on, kept),
// and not when MINITF_MAX_CPU_ISA=baseline asks for an SSE2 machine (oneDNN
// has no SSE2 kernels). MINITF_MAX_CPU_ISA=avx2 caps oneDNN at AVX2.
//
// Thread-safe.
#ifndef MINITF_OPS_KERNELS_ONEDNN_HOST_H_
#define MINITF_OPS_KERNELS_ONEDNN_HOST_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace minitf::functor {

// Whether the host's float products and convolutions go through oneDNN.
bool OneDnnEnabled();

// Why not, when !OneDnnEnabled() ("TF_ENABLE_ONEDNN_OPTS=0", ...); "" else.
std::string WhyOneDnnOff();

// The value of a switch in the environment: 1 or true (in any case) is on,
// 0 or false off; InvalidArgument naming `variable` and the value otherwise.
absl::StatusOr<bool> ParseOnOff(absl::string_view variable, const std::string& value);

// ParseOnOff of a TF_ENABLE_ONEDNN_OPTS value.
absl::StatusOr<bool> ParseOneDnnOpts(const std::string& value);

// Whether the 3x3 stride-1 float convolutions may take oneDNN's Winograd
// kernels (onednn_conv.h): on unless MINITF_ONEDNN_WINOGRAD is 0 or false
// (read once; a value that is not a boolean is logged, the default kept).
bool OneDnnWinogradEnabled();

// "oneDNN 2.6.3, up to avx512": the library and the widest vector unit its
// kernels may use (the processor's, capped by MINITF_MAX_CPU_ISA).
std::string OneDnnName();

// Before every oneDNN call: applies the ISA cap once in the process (before
// any kernel is made: later calls cannot change it), and asks for `threads`
// OpenMP threads on this thread (Debian builds oneDNN on libgomp, whose
// thread count is a per-thread setting; 1 runs the call on this thread
// alone). REQUIRES: OneDnnEnabled(); threads >= 1.
void PrepareOneDnnCall(int threads);

}  // namespace minitf::functor

#endif  // MINITF_OPS_KERNELS_ONEDNN_HOST_H_
