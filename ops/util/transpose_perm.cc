#include "ops/util/transpose_perm.h"

#include "absl/strings/str_cat.h"

namespace minitf {

absl::StatusOr<std::vector<int>> TransposePermutation(const Tensor& perm, int rank) {
  if (perm.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("perm must be a vector, got shape ", perm.shape().DebugString()));
  }
  std::vector<int64_t> values;
  if (perm.dtype() == DT_INT32) {
    auto flat = perm.flat<int32_t>();
    values.assign(flat.data(), flat.data() + flat.size());
  } else if (perm.dtype() == DT_INT64) {
    auto flat = perm.flat<int64_t>();
    values.assign(flat.data(), flat.data() + flat.size());
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("perm must be int32 or int64, got ", DataTypeString(perm.dtype())));
  }
  if (static_cast<int64_t>(values.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "perm ", perm.SummarizeValue(), " has ", values.size(), " entries, but x has rank ", rank));
  }
  std::vector<int> dims(rank);
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    const int64_t d = values[i];
    if (d < 0 || d >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("perm ", perm.SummarizeValue(), ": entry ", d,
                                                     " is out of range [0, ", rank, ")"));
    }
    if (seen[d]) {
      return absl::InvalidArgumentError(absl::StrCat("perm ", perm.SummarizeValue(),
                                                     " is not a permutation: dimension ", d,
                                                     " appears more than once"));
    }
    seen[d] = true;
    dims[i] = static_cast<int>(d);
  }
  return dims;
}

absl::StatusOr<TransposePlan> PlanTranspose(const Tensor& x, const Tensor& perm, int max_rank) {
  absl::StatusOr<std::vector<int>> p = TransposePermutation(perm, x.dims());
  if (!p.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(p.status().message(), "; x has shape ", x.shape().DebugString()));
  }
  TransposePlan plan;
  plan.perm = *std::move(p);
  plan.identity = true;
  for (int i = 0; i < x.dims(); ++i) {
    plan.identity = plan.identity && plan.perm[i] == i;
    plan.out_shape.AddDim(x.dim_size(plan.perm[i]));
  }
  if (!plan.identity && x.dims() > max_rank) {
    return absl::UnimplementedError(absl::StrCat("Transpose of rank ", x.dims(), " (shape ",
                                                 x.shape().DebugString(), "); ranks up to ",
                                                 max_rank, " are implemented"));
  }
  return plan;
}

}  // namespace minitf
