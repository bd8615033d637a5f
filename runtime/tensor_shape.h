// TensorShape: the dimensions of a Tensor whose shape is fully known, and
// PartialTensorShape, a shape that may have unknown dimensions (-1) or an
// unknown rank, used by shape inference.
//
//   TensorShape s({2, 3});     // s.dims() == 2, s.num_elements() == 6
//   s.DebugString();           // "[2,3]"
//
// A TensorShape's element count always fits in int64_t. The constructors and
// AddDim require it (they abort on a negative size or an overflowing product,
// as TensorFlow's do); sizes that come from a user, a tensor or arithmetic on
// other shapes go through Build or AddDimWithStatus, which return
// InvalidArgument instead.
#ifndef MINITF_RUNTIME_TENSOR_SHAPE_H_
#define MINITF_RUNTIME_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace minitf {

// x * y for x, y >= 0, or -1 when the product does not fit in int64_t
// (or either factor is negative).
int64_t MultiplyWithoutOverflow(int64_t x, int64_t y);

class TensorShape {
 public:
  // A scalar (rank 0, one element).
  TensorShape() = default;
  // REQUIRES: every dimension >= 0 and the element count fits in int64_t
  // (use Build for untrusted input).
  TensorShape(std::initializer_list<int64_t> dims);
  explicit TensorShape(absl::Span<const int64_t> dims);

  // Validates untrusted dimensions: negative sizes and overflow are errors.
  static absl::StatusOr<TensorShape> Build(absl::Span<const int64_t> dims);

  int dims() const { return static_cast<int>(dims_.size()); }
  int64_t dim_size(int d) const { return dims_[d]; }
  absl::Span<const int64_t> dim_sizes() const { return dims_; }
  int64_t num_elements() const { return num_elements_; }

  // REQUIRES: size >= 0 and the new element count fits in int64_t.
  void AddDim(int64_t size);
  // AddDim for untrusted sizes: InvalidArgument (and no change) for a
  // negative size or an element count that overflows int64_t.
  absl::Status AddDimWithStatus(int64_t size);
  void InsertDim(int d, int64_t size);
  void RemoveDim(int d);
  void set_dim(int d, int64_t size);

  bool IsSameSize(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator==(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator!=(const TensorShape& other) const { return !(*this == other); }

  // "[2,3]"; "[]" for a scalar.
  std::string DebugString() const;

 private:
  void Recompute();

  absl::InlinedVector<int64_t, 4> dims_;
  int64_t num_elements_ = 1;
};

// A shape with possibly unknown parts: unknown rank, or dimensions of -1.
class PartialTensorShape {
 public:
  // Unknown rank.
  PartialTensorShape() = default;
  // Known rank; -1 marks an unknown dimension.
  PartialTensorShape(std::initializer_list<int64_t> dims);
  explicit PartialTensorShape(absl::Span<const int64_t> dims);
  PartialTensorShape(const TensorShape& shape);  // NOLINT: a known shape is partial.

  static PartialTensorShape Unknown() { return PartialTensorShape(); }
  static PartialTensorShape UnknownOfRank(int rank);

  bool unknown_rank() const { return unknown_rank_; }
  // -1 when the rank is unknown.
  int dims() const { return unknown_rank_ ? -1 : static_cast<int>(dims_.size()); }
  // -1 when unknown. REQUIRES: rank known and 0 <= d < dims().
  int64_t dim_size(int d) const { return dims_[d]; }
  absl::Span<const int64_t> dim_sizes() const { return dims_; }
  bool IsFullyDefined() const;
  // -1 unless fully defined with an element count that fits in int64_t.
  int64_t num_elements() const;
  // REQUIRES: IsFullyDefined() and num_elements() >= 0 (else use
  // TensorShape::Build(dim_sizes())).
  TensorShape AsTensorShape() const;

  // True when some fully defined shape fits both.
  bool IsCompatibleWith(const PartialTensorShape& other) const;
  // True when `shape` is one of the shapes this partial shape allows.
  bool IsCompatibleWith(const TensorShape& shape) const {
    return IsCompatibleWith(PartialTensorShape(shape));
  }
  // The most specific shape compatible with both, or an error.
  absl::StatusOr<PartialTensorShape> MergeWith(const PartialTensorShape& other) const;

  bool operator==(const PartialTensorShape& other) const {
    return unknown_rank_ == other.unknown_rank_ && dims_ == other.dims_;
  }

  // "?" for unknown rank, "[2,?]" with unknown dimensions.
  std::string DebugString() const;

 private:
  bool unknown_rank_ = true;
  absl::InlinedVector<int64_t, 4> dims_;
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_TENSOR_SHAPE_H_
