// The float NHWC convolution and its two gradients on the host through
// oneDNN, the library TensorFlow's x86 builds convolve with: JIT kernels for
// the widest vector unit the processor has (AVX-512, AVX2), chosen when the
// process runs, working on the tensors' own NHWC layout. The filter (HWIO) is
// reordered into the layout the chosen kernel wants, in the caller's
// workspace; so is the filter gradient before it is written back as HWIO.
//
//   if (OneDnnEnabled()) {  // onednn_host.h
//     OneDnnConv conv(OneDnnConv::Direction::kForward, g);
//     std::vector<uint8_t> workspace(*conv.WorkspaceBytes());
//     MINITF_RETURN_IF_ERROR(conv.Run(threads, input, filter, output, workspace.data()));
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

  // Computes `out`, overwriting all of it. REQUIRES: WorkspaceBytes() was
  // ok; `workspace` holds that many bytes, 64-byte aligned; no buffer
  // overlaps another; threads >= 1.
  absl::Status Run(int threads, const float* a, const float* b, float* out, void* workspace);

 private:
  struct Plan;
  Direction direction_;
  Conv2DGeometry g_;
  std::unique_ptr<Plan> plan_;  // Made by WorkspaceBytes.
};

}  // namespace minitf::functor

#endif  // MINITF_OPS_KERNELS_ONEDNN_CONV_H_
