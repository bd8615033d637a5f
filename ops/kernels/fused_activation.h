// The activation a fused kernel applies after its bias (fused_ops' second
// entry): a plain enum that the CPU code (fused_bias_activation.h) and the
// CUDA launcher (fused_bias_activation_gpu.h) share. The GELUs are
// TensorFlow's (tf.nn.gelu): kGeluApproximate is
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), kGeluExact
// 0.5 x erfc(-x / sqrt(2)).
#ifndef MINITF_OPS_KERNELS_FUSED_ACTIVATION_H_
#define MINITF_OPS_KERNELS_FUSED_ACTIVATION_H_

namespace minitf {

enum class FusedActivation { kNone, kRelu, kRelu6, kElu, kTanh, kGeluApproximate, kGeluExact };

// The GELUs' constants, as tf.nn.gelu writes them.
inline constexpr double kGeluSqrtTwoOverPi = 0.7978845608028654;
inline constexpr double kGeluCubeCoefficient = 0.044715;
inline constexpr double kGeluSqrtOneHalf = 0.7071067811865476;

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_FUSED_ACTIVATION_H_
