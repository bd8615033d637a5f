// The check every device's AddN kernel makes before it adds.
#ifndef MINITF_OPS_KERNELS_AGGREGATE_OPS_COMMON_H_
#define MINITF_OPS_KERNELS_AGGREGATE_OPS_COMMON_H_

#include "absl/status/status.h"
#include "runtime/op_kernel.h"

namespace minitf {

// InvalidArgument naming `op`'s node, with TensorFlow's wording, unless
// every input of `ctx` has input 0's shape.
absl::Status ValidateAddNInputs(OpKernelContext* ctx, const OpKernel& op);

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_AGGREGATE_OPS_COMMON_H_
