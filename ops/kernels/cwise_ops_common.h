// BinaryOpShared: what every device's broadcasting binary kernel (Add, Sub,
// Mul, Div, Maximum, Minimum, and the comparison and logical ops) shares,
// after TensorFlow's BinaryOpShared: the broadcast of the operands' shapes
// (BCast, ops/util/bcast.h) and the limit on the rank of its merged view
// that a kernel can walk.
//
//   absl::StatusOr<BCast> bcast = Broadcast(x, y);
//   OP_REQUIRES_OK(ctx, bcast.status());
//   OP_REQUIRES_OK(ctx, CheckBroadcastRank(*bcast, x, y, kMaxBroadcastRank));
//   allocate bcast->output_shape(), then combine on this device.
//
// ToEigenArray turns the merged view's dims into the arguments of an Eigen
// broadcast for the CPU kernels.
#ifndef MINITF_OPS_KERNELS_CWISE_OPS_COMMON_H_
#define MINITF_OPS_KERNELS_CWISE_OPS_COMMON_H_

#include "absl/status/statusor.h"
#include "ops/util/bcast.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf {

class BinaryOpShared : public OpKernel {
 public:
  explicit BinaryOpShared(OpKernelConstruction* ctx) : OpKernel(ctx) {}

 protected:
  // BCast::Make of x's and y's shapes; its InvalidArgument names the node.
  absl::StatusOr<BCast> Broadcast(const Tensor& x, const Tensor& y) const;

  // Unimplemented, naming the node, when the merged view of `bcast` has a
  // rank above `max_rank` (the stretched dimensions alternate too often).
  absl::Status CheckBroadcastRank(const BCast& bcast, const Tensor& x, const Tensor& y,
                                  int max_rank) const;
};

// The first N entries of `dims`. REQUIRES: dims.size() >= N.
template <int N>
Eigen::array<Eigen::DenseIndex, N> ToEigenArray(const BCast::Dims& dims) {
  Eigen::array<Eigen::DenseIndex, N> out;
  for (int i = 0; i < N; ++i) out[i] = dims[i];
  return out;
}

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_CWISE_OPS_COMMON_H_
