// The activation a fused kernel applies after its bias (fused_ops' second
// entry): a plain enum that the CPU code (fused_bias_activation.h) and the
// CUDA launcher (fused_bias_activation_gpu.h) share.
#ifndef MINITF_OPS_KERNELS_FUSED_ACTIVATION_H_
#define MINITF_OPS_KERNELS_FUSED_ACTIVATION_H_

namespace minitf {

enum class FusedActivation { kNone, kRelu, kRelu6, kElu, kTanh };

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_FUSED_ACTIVATION_H_
