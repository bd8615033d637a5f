// The checks every device's activation kernels make before they compute.
// Relu, Sigmoid and Tanh take any shape; ReluGrad (and the other activation
// gradients) need their two inputs to have one shape.
//
//   OP_REQUIRES_OK(ctx, ValidateReluGradInputs(gradients, features, *this));
//   OP_REQUIRES_OK(ctx, ValidateActivationGradInputs(gradients, outputs, "outputs", *this));
#ifndef MINITF_OPS_KERNELS_ACTIVATION_OPS_COMMON_H_
#define MINITF_OPS_KERNELS_ACTIVATION_OPS_COMMON_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf {

// InvalidArgument, naming `op`'s node, unless gradients and features have
// the same shape.
absl::Status ValidateReluGradInputs(const Tensor& gradients, const Tensor& features,
                                    const OpKernel& op);

// The same for an activation gradient whose second input is named `name`
// (features, or outputs for EluGrad).
absl::Status ValidateActivationGradInputs(const Tensor& gradients, const Tensor& second,
                                          absl::string_view name, const OpKernel& op);

// For the gradient helpers of unary ops (SigmoidGrad, TanhGrad, RsqrtGrad,
// ...): InvalidArgument, naming `op`'s node, unless y and dy have as many
// elements.
absl::Status ValidateUnaryGradInputs(const Tensor& y, const Tensor& dy, const OpKernel& op);

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_ACTIVATION_OPS_COMMON_H_
