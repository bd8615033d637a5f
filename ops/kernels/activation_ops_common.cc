#include "ops/kernels/activation_ops_common.h"

#include "absl/strings/str_cat.h"
#include "runtime/node_def_util.h"

namespace minitf {

absl::Status ValidateReluGradInputs(const Tensor& gradients, const Tensor& features,
                                    const OpKernel& op) {
  return ValidateActivationGradInputs(gradients, features, "features", op);
}

absl::Status ValidateActivationGradInputs(const Tensor& gradients, const Tensor& second,
                                          absl::string_view name, const OpKernel& op) {
  if (gradients.shape() == second.shape()) return absl::OkStatus();
  return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                            "gradients and ", name, " must have the same shape, got ",
                            gradients.shape().DebugString(), " and ",
                            second.shape().DebugString())),
                        op.def());
}

absl::Status ValidateUnaryGradInputs(const Tensor& y, const Tensor& dy, const OpKernel& op) {
  if (y.NumElements() == dy.NumElements()) return absl::OkStatus();
  return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                            "y and dy must have the same number of elements, got ",
                            y.shape().DebugString(), " and ", dy.shape().DebugString())),
                        op.def());
}

}  // namespace minitf
