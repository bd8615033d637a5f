// What the remapper's fused kernels add after their contraction (the
// product of _FusedMatMul, the convolution of _FusedConv2D): a bias along
// the last dimension, then an activation, in one pass over the output
// instead of BiasAdd's and the activation's kernels taking one each. The
// fused_ops attr names them as TensorFlow's does: ["BiasAdd"] or
// ["BiasAdd", act] with act one of Relu, Relu6, Elu, Tanh, GeluApproximate,
// GeluExact.
//
//   absl::StatusOr<FusedActivation> act = FusedActivationFromAttrs(*ctx);
//   ...
//   AddBiasAndActivate<float>(ctx->eigen_cpu_device(), *act, bias, &output);
#ifndef MINITF_OPS_KERNELS_FUSED_BIAS_ACTIVATION_H_
#define MINITF_OPS_KERNELS_FUSED_BIAS_ACTIVATION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/kernels/fused_activation.h"
#include "runtime/tensor.h"

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "unsupported/Eigen/CXX11/Tensor"

namespace minitf {

class OpKernelConstruction;
class OpKernelContext;

// The activation `fused_ops` asks for; Unimplemented for any other list.
absl::StatusOr<FusedActivation> ParseFusedOps(const std::vector<std::string>& fused_ops);

// The activation a fused kernel's attrs ask for: fused_ops as ParseFusedOps
// reads it, num_args 1 (the bias) and, where the op has it, num_host_args 0
// (InvalidArgument naming both counts otherwise).
absl::StatusOr<FusedActivation> FusedActivationFromAttrs(const OpKernelConstruction& ctx);

// Whether the attrs ask for a MatMul's residual connection: fused_ops
// [BiasAdd, Add] (the CPU's, as TensorFlow's oneDNN build), with num_args 2
// (the bias, then an addend of the output's shape); InvalidArgument naming
// the count when num_args is not 2.
absl::StatusOr<bool> FusedOpsAddAnAddend(const OpKernelConstruction& ctx);

// output = act(output + bias), the bias along the last dimension, in place.
// REQUIRES: `bias` is a vector of the output's last dimension (the kernels
// check it, naming the node), T float or double.
template <typename T>
void AddBiasAndActivate(const Eigen::ThreadPoolDevice& d, FusedActivation activation,
                        const Tensor& bias, Tensor* output);

// output = output + bias + addend in one pass, the bias along the last
// dimension. REQUIRES: `addend` has the output's shape, T float or double.
template <typename T>
void AddBiasAndAddend(const Eigen::ThreadPoolDevice& d, const Tensor& bias, const Tensor& addend,
                      Tensor* output);

#ifdef MINITF_WITH_CUDA
// AddBiasAndActivate on the kernel's CUDA compute stream (fused_bias_activation_gpu.h),
// float only; the launch's error as a Status naming the kernel.
absl::Status AddBiasAndActivateOnComputeStream(OpKernelContext* ctx, FusedActivation activation,
                                               const Tensor& bias, Tensor* output);
#endif

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_FUSED_BIAS_ACTIVATION_H_
