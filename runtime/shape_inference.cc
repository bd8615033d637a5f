#include "runtime/shape_inference.h"

#include "absl/strings/str_cat.h"

namespace minitf {

InferenceContext::InferenceContext(const NodeDef* def, const OpDef* op_def,
                                   std::vector<PartialTensorShape> input_shapes,
                                   std::vector<const Tensor*> input_tensors,
                                   int num_outputs)
    : def_(def),
      op_def_(op_def),
      inputs_(std::move(input_shapes)),
      input_tensors_(std::move(input_tensors)),
      outputs_(num_outputs) {
  input_tensors_.resize(inputs_.size(), nullptr);
}

absl::Status InferenceContext::Error(absl::string_view message) const {
  return absl::InvalidArgumentError(
      absl::StrCat("Node '", def_->name, "' (op '", def_->op, "'): ", message));
}

absl::Status InferenceContext::WithRank(const PartialTensorShape& shape, int rank,
                                        PartialTensorShape* out) const {
  if (shape.unknown_rank()) {
    *out = PartialTensorShape::UnknownOfRank(rank);
    return absl::OkStatus();
  }
  if (shape.dims() != rank) {
    return Error(absl::StrCat("shape ", shape.DebugString(), " must have rank ", rank,
                              ", but has rank ", shape.dims()));
  }
  *out = shape;
  return absl::OkStatus();
}

absl::Status InferenceContext::WithRankAtLeast(const PartialTensorShape& shape, int rank,
                                               PartialTensorShape* out) const {
  if (!shape.unknown_rank() && shape.dims() < rank) {
    return Error(absl::StrCat("shape ", shape.DebugString(), " must have rank at least ",
                              rank, ", but has rank ", shape.dims()));
  }
  *out = shape;
  return absl::OkStatus();
}

absl::Status InferenceContext::Merge(const PartialTensorShape& a,
                                     const PartialTensorShape& b,
                                     PartialTensorShape* out) const {
  auto merged = a.MergeWith(b);
  if (!merged.ok()) return Error(merged.status().message());
  *out = *std::move(merged);
  return absl::OkStatus();
}

absl::Status InferenceContext::MakeShapeFromShapeTensor(int input_index,
                                                        PartialTensorShape* out) const {
  const Tensor* t = input_tensor(input_index);
  if (t == nullptr) {
    const PartialTensorShape& s = input(input_index);
    if (!s.unknown_rank() && s.dims() == 1 && s.dim_size(0) >= 0) {
      *out = PartialTensorShape::UnknownOfRank(static_cast<int>(s.dim_size(0)));
    } else {
      *out = PartialTensorShape::Unknown();
    }
    return absl::OkStatus();
  }
  if (t->dims() > 1) {
    return Error(absl::StrCat("shape input must be a vector, got shape ",
                              t->shape().DebugString()));
  }
  std::vector<int64_t> dims;
  if (t->dtype() == DT_INT32) {
    for (int64_t i = 0; i < t->NumElements(); ++i) dims.push_back(t->flat<int32_t>()(i));
  } else if (t->dtype() == DT_INT64) {
    for (int64_t i = 0; i < t->NumElements(); ++i) dims.push_back(t->flat<int64_t>()(i));
  } else {
    return Error(absl::StrCat("shape input must be int32 or int64, got ",
                              DataTypeString(t->dtype())));
  }
  for (int64_t d : dims) {
    if (d < -1) return Error(absl::StrCat("shape has a negative dimension ", d));
  }
  *out = PartialTensorShape(absl::Span<const int64_t>(dims));
  return absl::OkStatus();
}

namespace shape_fns {

absl::Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialTensorShape());
  return absl::OkStatus();
}

absl::Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status ScalarShape(InferenceContext* c) {
  c->set_output(0, PartialTensorShape(TensorShape()));
  return absl::OkStatus();
}

absl::Status BroadcastShapes(const PartialTensorShape& a, const PartialTensorShape& b,
                             PartialTensorShape* out) {
  if (a.unknown_rank() || b.unknown_rank()) {
    *out = PartialTensorShape();
    return absl::OkStatus();
  }
  const int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.dims() - rank + i, ib = b.dims() - rank + i;
    const int64_t da = ia >= 0 ? a.dim_size(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim_size(ib) : 1;
    if (da == 1) {
      dims[i] = db;
    } else if (db == 1) {
      dims[i] = da;
    } else if (da == -1 || db == -1) {
      dims[i] = da == -1 ? db : da;
    } else if (da == db) {
      dims[i] = da;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("incompatible shapes for broadcasting: ",
                                                     a.DebugString(), " and ", b.DebugString()));
    }
  }
  *out = PartialTensorShape(absl::Span<const int64_t>(dims));
  return absl::OkStatus();
}

absl::Status BroadcastBinaryOpShape(InferenceContext* c) {
  PartialTensorShape out;
  absl::Status s = BroadcastShapes(c->input(0), c->input(1), &out);
  if (!s.ok()) return c->Error(s.message());
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace shape_fns

}  // namespace minitf
