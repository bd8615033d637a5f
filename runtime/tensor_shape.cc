#include "runtime/tensor_shape.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/logging.h"

namespace minitf {
namespace {

// The element count of `dims`, or -1 when a size is negative or the product
// overflows.
int64_t ElementCount(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    n = MultiplyWithoutOverflow(n, d);
    if (n < 0) return -1;
  }
  return n;
}

}  // namespace

int64_t MultiplyWithoutOverflow(int64_t x, int64_t y) {
  if (x < 0 || y < 0) return -1;
  int64_t product = 0;
  if (__builtin_mul_overflow(x, y, &product)) return -1;
  return product;
}

TensorShape::TensorShape(std::initializer_list<int64_t> dims)
    : TensorShape(absl::Span<const int64_t>(dims.begin(), dims.size())) {}

TensorShape::TensorShape(absl::Span<const int64_t> dims) : dims_(dims.begin(), dims.end()) {
  for (int64_t d : dims_) MINITF_CHECK(d >= 0);
  Recompute();
}

absl::StatusOr<TensorShape> TensorShape::Build(absl::Span<const int64_t> dims) {
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape [", absl::StrJoin(dims, ","), "] has a negative dimension"));
    }
  }
  if (ElementCount(dims) < 0) {
    return absl::InvalidArgumentError(absl::StrCat("shape [", absl::StrJoin(dims, ","),
                                                   "] has too many elements (more than 2^63-1)"));
  }
  return TensorShape(dims);
}

void TensorShape::Recompute() {
  num_elements_ = ElementCount(dims_);
  if (num_elements_ < 0) {
    std::fprintf(stderr, "TensorShape %s: more than 2^63-1 elements (use TensorShape::Build)\n",
                 DebugString().c_str());
  }
  MINITF_CHECK(num_elements_ >= 0);
}

void TensorShape::AddDim(int64_t size) {
  MINITF_CHECK(size >= 0);
  dims_.push_back(size);
  Recompute();
}

absl::Status TensorShape::AddDimWithStatus(int64_t size) {
  const int64_t n = MultiplyWithoutOverflow(num_elements_, size);
  if (n < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot add dimension ", size, " to shape ", DebugString(),
                     size < 0 ? ": negative size" : ": more than 2^63-1 elements"));
  }
  dims_.push_back(size);
  num_elements_ = n;
  return absl::OkStatus();
}

void TensorShape::InsertDim(int d, int64_t size) {
  MINITF_CHECK(size >= 0 && d >= 0 && d <= dims());
  dims_.insert(dims_.begin() + d, size);
  Recompute();
}

void TensorShape::RemoveDim(int d) {
  MINITF_CHECK(d >= 0 && d < dims());
  dims_.erase(dims_.begin() + d);
  Recompute();
}

void TensorShape::set_dim(int d, int64_t size) {
  MINITF_CHECK(size >= 0 && d >= 0 && d < dims());
  dims_[d] = size;
  Recompute();
}

std::string TensorShape::DebugString() const {
  return absl::StrCat("[", absl::StrJoin(dims_, ","), "]");
}

PartialTensorShape::PartialTensorShape(std::initializer_list<int64_t> dims)
    : PartialTensorShape(absl::Span<const int64_t>(dims.begin(), dims.size())) {}

PartialTensorShape::PartialTensorShape(absl::Span<const int64_t> dims)
    : unknown_rank_(false), dims_(dims.begin(), dims.end()) {
  for (int64_t& d : dims_) {
    if (d < 0) d = -1;
  }
}

PartialTensorShape::PartialTensorShape(const TensorShape& shape)
    : PartialTensorShape(shape.dim_sizes()) {}

PartialTensorShape PartialTensorShape::UnknownOfRank(int rank) {
  PartialTensorShape s;
  s.unknown_rank_ = false;
  s.dims_.assign(rank, -1);
  return s;
}

bool PartialTensorShape::IsFullyDefined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

int64_t PartialTensorShape::num_elements() const {
  if (!IsFullyDefined()) return -1;
  return ElementCount(dims_);
}

TensorShape PartialTensorShape::AsTensorShape() const {
  MINITF_CHECK(IsFullyDefined());
  return TensorShape(absl::Span<const int64_t>(dims_));
}

bool PartialTensorShape::IsCompatibleWith(const PartialTensorShape& other) const {
  return MergeWith(other).ok();
}

absl::StatusOr<PartialTensorShape> PartialTensorShape::MergeWith(
    const PartialTensorShape& other) const {
  if (unknown_rank_) return other;
  if (other.unknown_rank_) return *this;
  if (dims_.size() != other.dims_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shapes ", DebugString(), " and ", other.DebugString(), " have different ranks"));
  }
  PartialTensorShape merged = *this;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const int64_t a = dims_[i], b = other.dims_[i];
    if (a >= 0 && b >= 0 && a != b) {
      return absl::InvalidArgumentError(
          absl::StrCat("shapes ", DebugString(), " and ", other.DebugString(),
                       " differ in dimension ", i, " (", a, " vs ", b, ")"));
    }
    merged.dims_[i] = a >= 0 ? a : b;
  }
  return merged;
}

std::string PartialTensorShape::DebugString() const {
  if (unknown_rank_) return "?";
  return absl::StrCat(
      "[",
      absl::StrJoin(dims_, ",",
                    [](std::string* out, int64_t d) {
                      absl::StrAppend(out, d < 0 ? std::string("?") : absl::StrCat(d));
                    }),
      "]");
}

}  // namespace minitf
