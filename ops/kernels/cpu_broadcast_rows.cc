#include "ops/kernels/cpu_broadcast_rows.h"

namespace minitf::functor {

std::optional<BroadcastRows> BroadcastRowsOf(const BCast& bcast) {
  const int rank = bcast.rank();
  const BCast::Dims& dims = bcast.result_dims();
  if (rank < 1 || rank - 1 > BroadcastRows::kMaxLeading) return std::nullopt;
  BroadcastRows rows;
  rows.columns = dims[rank - 1];
  if (rows.columns < BroadcastRows::kMinColumns) return std::nullopt;
  rows.x_repeated = bcast.x_reshape()[rank - 1] == 1;
  rows.y_repeated = bcast.y_reshape()[rank - 1] == 1;
  if (rows.x_repeated && rows.y_repeated) return std::nullopt;
  rows.leading = rank - 1;
  rows.rows = 1;
  int64_t x_stride = bcast.x_reshape()[rank - 1];
  int64_t y_stride = bcast.y_reshape()[rank - 1];
  for (int i = rank - 2; i >= 0; --i) {
    rows.dims[i] = dims[i];
    rows.rows *= dims[i];
    // A dimension the operand is stretched along (its size 1 there) adds
    // nothing to its offset.
    rows.x_strides[i] = bcast.x_reshape()[i] == 1 ? 0 : x_stride;
    rows.y_strides[i] = bcast.y_reshape()[i] == 1 ? 0 : y_stride;
    x_stride *= bcast.x_reshape()[i];
    y_stride *= bcast.y_reshape()[i];
  }
  return rows;
}

}  // namespace minitf::functor
