// Op definitions: ops that make or scatter along integer indices: Range,
// OneHot, Unique, and UnsortedSegmentSum (which GatherV2's gradient emits).
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/util/index_values.h"
#include "platform/status_macros.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf {
namespace {

// Range: a vector, of known length when all three inputs are constants.
absl::Status RangeShape(InferenceContext* c) {
  for (int i = 0; i < 3; ++i) {
    PartialTensorShape scalar;
    MINITF_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &scalar));
  }
  const Tensor* start = c->input_tensor(0);
  const Tensor* limit = c->input_tensor(1);
  const Tensor* delta = c->input_tensor(2);
  if (start == nullptr || limit == nullptr || delta == nullptr) {
    c->set_output(0, PartialTensorShape({-1}));
    return absl::OkStatus();
  }
  auto value = [](const Tensor* t) -> double {
    switch (t->dtype()) {
      case DT_FLOAT:
        return t->scalar<float>()();
      case DT_DOUBLE:
        return t->scalar<double>()();
      case DT_INT32:
        return t->scalar<int32_t>()();
      default:
        return static_cast<double>(t->scalar<int64_t>()());
    }
  };
  const double s = value(start), l = value(limit), d = value(delta);
  if (d == 0) return c->Error(absl::StrCat("Requires delta != 0: ", d));
  if ((d > 0 && s > l) || (d < 0 && s < l)) {
    return c->Error(absl::StrCat("Requires start ", d > 0 ? "<=" : ">=", " limit when delta ",
                                 d > 0 ? "> 0" : "< 0", ": ", s, "/", l));
  }
  const bool integral = start->dtype() == DT_INT32 || start->dtype() == DT_INT64;
  const int64_t size =
      integral ? static_cast<int64_t>((std::abs(l - s) + std::abs(d) - 1) / std::abs(d))
               : static_cast<int64_t>(std::ceil(std::abs((l - s) / d)));
  c->set_output(0, PartialTensorShape({size}));
  return absl::OkStatus();
}

// OneHot: the indices' shape with `depth` inserted at `axis` (-1: last).
absl::Status OneHotShape(InferenceContext* c) {
  const PartialTensorShape& indices = c->input(0);
  int64_t axis;
  MINITF_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -1) return c->Error(absl::StrCat("axis must be >= -1, got ", axis));
  for (int i = 1; i < 4; ++i) {
    PartialTensorShape scalar;
    MINITF_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &scalar));
  }
  if (indices.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = indices.dims();
  if (axis > rank) {
    return c->Error(absl::StrCat("Expected axis to be -1 or between [0, ", rank + 1,
                                 ").  But received: ", axis));
  }
  int64_t depth = -1;
  if (const Tensor* d = c->input_tensor(1); d != nullptr) {
    depth = d->scalar<int32_t>()();
    if (depth < 0) return c->Error(absl::StrCat("depth must be non-negative, got: ", depth));
  }
  std::vector<int64_t> dims(indices.dim_sizes().begin(), indices.dim_sizes().end());
  dims.insert(axis == -1 ? dims.end() : dims.begin() + axis, depth);
  c->set_output(0, PartialTensorShape(absl::Span<const int64_t>(dims)));
  return absl::OkStatus();
}

// UnsortedSegmentSum: [num_segments] + data.shape[rank(segment_ids):].
absl::Status UnsortedSegmentSumShape(InferenceContext* c) {
  const PartialTensorShape& data = c->input(0);
  const PartialTensorShape& ids = c->input(1);
  PartialTensorShape scalar;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &scalar));
  if (data.unknown_rank() || ids.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return absl::OkStatus();
  }
  if (ids.dims() > data.dims()) {
    return c->Error(absl::StrCat("segment_ids of shape ", ids.DebugString(),
                                 " has a higher rank than data of shape ", data.DebugString()));
  }
  int64_t segments = -1;
  if (const Tensor* n = c->input_tensor(2); n != nullptr) {
    absl::StatusOr<int64_t> v = IndexScalar(*n, "num_segments");
    if (!v.ok()) return c->Error(v.status().message());
    segments = *v;
  }
  std::vector<int64_t> dims = {segments};
  dims.insert(dims.end(), data.dim_sizes().begin() + ids.dims(), data.dim_sizes().end());
  c->set_output(0, PartialTensorShape(absl::Span<const int64_t>(dims)));
  return absl::OkStatus();
}

// Unique: y has as many elements as x has distinct values (known only by
// running); idx has x's shape.
absl::Status UniqueShape(InferenceContext* c) {
  PartialTensorShape x;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &x));
  c->set_output(0, PartialTensorShape({-1}));
  c->set_output(1, x);
  return absl::OkStatus();
}

}  // namespace

// [start, start + delta, ...] up to but excluding `limit`.
REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr("Tidx: {float, double, int32, int64} = int32")
    .SetShapeFn(RangeShape);

// output[..., j, ...] = on_value where indices[...] == j, else off_value,
// with the new dimension of size `depth` at `axis`. Indices outside
// [0, depth) give a row of off_value.
REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Output("output: T")
    .Attr("axis: int = -1")
    .Attr("T: type")
    .Attr("TI: {int32, int64} = int64")
    .SetShapeFn(OneHotShape);

// The distinct values of the vector x in the order they first appear (y),
// and for each element of x the position of its value in y (idx), so
// x[i] == y[idx[i]].
REGISTER_OP("Unique")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = int32")
    .SetShapeFn(UniqueShape);

// output[i, ...] = sum of data[j..., ...] over the j with segment_ids[j...]
// == i; negative ids are dropped, ids >= num_segments are an error.
REGISTER_OP("UnsortedSegmentSum")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr("T: {float, double, int32, int64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = int32")
    .SetShapeFn(UnsortedSegmentSumShape);

}  // namespace minitf
