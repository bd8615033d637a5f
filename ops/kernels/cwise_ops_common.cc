#include "ops/kernels/cwise_ops_common.h"

#include "absl/strings/str_cat.h"
#include "runtime/node_def_util.h"

namespace minitf {

absl::StatusOr<BCast> BinaryOpShared::Broadcast(const Tensor& x, const Tensor& y) const {
  absl::StatusOr<BCast> bcast = BCast::Make(x.shape(), y.shape());
  if (!bcast.ok()) return AttachNodeName(bcast.status(), def());
  return bcast;
}

absl::Status BinaryOpShared::CheckBroadcastRank(const BCast& bcast, const Tensor& x,
                                                const Tensor& y, int max_rank) const {
  if (bcast.rank() <= max_rank) return absl::OkStatus();
  return AttachNodeName(
      absl::UnimplementedError(absl::StrCat(
          "broadcasting ", x.shape().DebugString(), " with ", y.shape().DebugString(),
          " alternates stretched dimensions ", bcast.rank(), " times; at most ", max_rank,
          " are supported")),
      def());
}

}  // namespace minitf
