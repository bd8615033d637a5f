#include "ops/kernels/cuda/broadcast_layout.h"

namespace minitf {
namespace {

// Row-major strides of `reshape`, 0 where the operand is stretched.
void OperandStrides(const BCast::Dims& reshape, int64_t* strides) {
  int64_t stride = 1;
  for (int d = static_cast<int>(reshape.size()) - 1; d >= 0; --d) {
    strides[d] = reshape[d] == 1 ? 0 : stride;
    stride *= reshape[d];
  }
}

}  // namespace

gpu::BroadcastLayout BroadcastLayoutOf(const BCast& bcast) {
  gpu::BroadcastLayout layout;
  layout.rank = bcast.rank();
  for (int d = 0; d < bcast.rank(); ++d) layout.result_dims[d] = bcast.result_dims()[d];
  OperandStrides(bcast.x_reshape(), layout.x_strides);
  OperandStrides(bcast.y_reshape(), layout.y_strides);
  return layout;
}

}  // namespace minitf
