#include "ops/util/fill_shape.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"

namespace minitf {
namespace {

template <typename Index>
std::vector<int64_t> Sizes(const Tensor& dims) {
  auto d = dims.vec<Index>();
  return std::vector<int64_t>(d.data(), d.data() + d.size());
}

}  // namespace

absl::StatusOr<TensorShape> FillShape(const Tensor& dims, const Tensor& value) {
  if (dims.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("dims must be a vector, got shape ", dims.shape().DebugString()));
  }
  if (value.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("value must be a scalar, got shape ", value.shape().DebugString()));
  }
  if (dims.dtype() != DT_INT32 && dims.dtype() != DT_INT64) {
    return absl::InvalidArgumentError(
        absl::StrCat("dims must be int32 or int64, got ", DataTypeString(dims.dtype())));
  }
  const std::vector<int64_t> sizes =
      dims.dtype() == DT_INT32 ? Sizes<int32_t>(dims) : Sizes<int64_t>(dims);
  absl::StatusOr<TensorShape> shape = TensorShape::Build(sizes);
  if (!shape.ok()) return absl::InvalidArgumentError(shape.status().message());
  return shape;
}

}  // namespace minitf
