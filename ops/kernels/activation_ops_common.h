// The checks every device's activation kernels make before they compute.
// Relu, Sigmoid and Tanh take any shape; ReluGrad needs its two inputs to
// have one shape.
//
//   OP_REQUIRES_OK(ctx, ValidateReluGradInputs(gradients, features, *this));
#ifndef MINITF_OPS_KERNELS_ACTIVATION_OPS_COMMON_H_
#define MINITF_OPS_KERNELS_ACTIVATION_OPS_COMMON_H_

#include "absl/status/status.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf {

// InvalidArgument, naming `op`'s node, unless gradients and features have
// the same shape.
absl::Status ValidateReluGradInputs(const Tensor& gradients, const Tensor& features,
                                    const OpKernel& op);

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_ACTIVATION_OPS_COMMON_H_
