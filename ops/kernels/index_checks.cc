#include "ops/kernels/index_checks.h"

namespace minitf {
namespace {

template <typename Index>
std::optional<BadIndex> FirstOutside(const Tensor& indices, int64_t lower, int64_t limit) {
  const Index* values = indices.data<Index>();
  const int64_t n = indices.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = static_cast<int64_t>(values[i]);
    if (v < lower || v >= limit) return BadIndex{i, v};
  }
  return std::nullopt;
}

}  // namespace

std::optional<BadIndex> FindBadIndexOnHost(const Tensor& indices, int64_t lower, int64_t limit) {
  if (indices.dtype() == DT_INT32) return FirstOutside<int32_t>(indices, lower, limit);
  return FirstOutside<int64_t>(indices, lower, limit);
}

}  // namespace minitf
