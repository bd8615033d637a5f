// The float NHWC convolution and its two gradients on the host through
// oneDNN, the library TensorFlow's x86 builds convolve with: JIT kernels for
// the widest vector unit the processor has (AVX-512, AVX2), chosen when the
// process runs.
//
// Algorithm: a 3x3 window of stride and dilation 1 over at least 32 4x4
// output tiles takes oneDNN's Winograd kernels, F(4x4, 3x3), which multiply
// 2.25x less and run ResNet-50's 3x3 convolutions about 1.9x faster in every
// direction on this project's AVX-512 machine (docs/BENCHMARKS.md) at a cost
// in rounding: within 2e-6 of the largest output, relative, on ResNet-50's
// sizes. TensorFlow's CPU kernels convolve directly (on a GPU, cuDNN picks
// Winograd the same way); MINITF_ONEDNN_WINOGRAD=0 (onednn_host.h) keeps
// every convolution direct. Everything else, and whatever Winograd refuses
// (a processor without AVX-512, channels it does not block), runs oneDNN's
// direct kernels.
//
// Layouts: the direct kernels work on the tensors' own NHWC layout and
// reorder the filter (HWIO) into the layout they want; Winograd's reorder all
// three tensors into its blocked layouts and back. Reorders go through the
// caller's workspace, the written tensor (the output or a gradient) last.
//
//   if (OneDnnEnabled()) {  // onednn_host.h
//     MINITF_ASSIGN_OR_RETURN(std::shared_ptr<const OneDnnConv> conv,
//                             SharedOneDnnConv(OneDnnConv::Direction::kForward, g));
//     std::vector<uint8_t> workspace(conv->workspace_bytes());
//     MINITF_RETURN_IF_ERROR(conv->Run(threads, input, filter, output, workspace.data()));
//   }
//
// When: whenever oneDNN is on (onednn_host.h: unless TF_ENABLE_ONEDNN_OPTS
// is 0 or MINITF_MAX_CPU_ISA=baseline). Otherwise, and for double, the
// im2col functors of conv_functors.h run.
//
// Threads: Debian's oneDNN runs on OpenMP. A call uses `threads` OpenMP
// threads (the intra-op pool's size) and calls run one at a time in the
// process, so two convolutions running side by side in the executor never
// put twice as many threads as cores to work.
//
// Thread-safe.
#ifndef MINITF_OPS_KERNELS_ONEDNN_CONV_H_
#define MINITF_OPS_KERNELS_ONEDNN_CONV_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/kernels/conv_functors.h"

namespace minitf::functor {

// What convolves on the host, as `minitf run --profile` reports it:
// "oneDNN 2.6.3, up to avx512" or "im2col and OpenBLAS (<why>)".
std::string HostConvolutionName();

// One convolution of geometry g, in one direction. The arguments of Run, by
// direction (layouts as in conv_functors.h):
//   kForward:        a = input,  b = filter,       out = output
//   kBackpropInput:  a = filter, b = out_backprop, out = in_backprop
//   kBackpropFilter: a = input,  b = out_backprop, out = filter_backprop
class OneDnnConv {
 public:
  enum class Direction { kForward, kBackpropInput, kBackpropFilter };

  OneDnnConv(Direction direction, const Conv2DGeometry& g);
  ~OneDnnConv();
  OneDnnConv(const OneDnnConv&) = delete;
  OneDnnConv& operator=(const OneDnnConv&) = delete;

  // Bytes of workspace Run needs: the reordered filter (or filter gradient)
  // and oneDNN's scratchpad. Unimplemented when oneDNN makes no kernel for
  // this convolution (an empty tensor, sizes it refuses): the caller then
  // uses im2col.
  absl::StatusOr<int64_t> WorkspaceBytes();

  // What WorkspaceBytes() returned, and whether the plan it made is
  // Winograd's. REQUIRES: WorkspaceBytes() was ok.
  int64_t workspace_bytes() const;
  bool winograd() const;

  // Computes `out`, overwriting all of it. REQUIRES: WorkspaceBytes() was
  // ok; `workspace` holds that many bytes, 64-byte aligned; no buffer
  // overlaps another; threads >= 1.
  absl::Status Run(int threads, const float* a, const float* b, float* out, void* workspace) const;

  struct Plan;  // Defined in the .cc only.

 private:
  Direction direction_;
  Conv2DGeometry g_;
  std::unique_ptr<Plan> plan_;  // Made by WorkspaceBytes.
};

// The process's plan for one direction and geometry, made on its first use
// and kept, as TensorFlow's oneDNN kernels keep their primitives (at most
// 1024; past that the cache starts over); its WorkspaceBytes() was ok.
// Unimplemented (remembered too) where oneDNN has no kernel: use im2col.
absl::StatusOr<std::shared_ptr<const OneDnnConv>> SharedOneDnnConv(OneDnnConv::Direction direction,
                                                                   const Conv2DGeometry& g);

}  // namespace minitf::functor

#endif  // MINITF_OPS_KERNELS_ONEDNN_CONV_H_
