#include "ops/kernels/activation_ops_common.h"

#include "absl/strings/str_cat.h"
#include "runtime/node_def_util.h"

namespace minitf {

absl::Status ValidateReluGradInputs(const Tensor& gradients, const Tensor& features,
                                    const OpKernel& op) {
  if (gradients.shape() == features.shape()) return absl::OkStatus();
  return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                            "gradients and features must have the same shape, got ",
                            gradients.shape().DebugString(), " and ",
                            features.shape().DebugString())),
                        op.def());
}

}  // namespace minitf
