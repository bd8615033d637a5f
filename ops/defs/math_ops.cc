// Op definitions: the elementwise binary ops (Add, Sub, Mul, Div, Maximum,
// Minimum, with NumPy broadcasting), the unary ops (Neg, Square, Sqrt, Exp,
// Log), Cast, and the reductions (Sum, Mean, Max).
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/reduction_axes.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"
#include "runtime/status_macros.h"

namespace minitf {
namespace {

constexpr char kNumberTypes[] = "T: {float, double, int32, int64}";
constexpr char kFloatTypes[] = "T: {float, double}";

// Binary ops: z = x op y, elementwise after broadcasting x and y.
#define MINITF_REGISTER_BINARY_OP_(name) \
  REGISTER_OP(name)                      \
      .Input("x: T")                     \
      .Input("y: T")                     \
      .Output("z: T")                    \
      .Attr(kNumberTypes)                \
      .SetShapeFn(shape_fns::BroadcastBinaryOpShape)

MINITF_REGISTER_BINARY_OP_("Add");
MINITF_REGISTER_BINARY_OP_("Sub");
MINITF_REGISTER_BINARY_OP_("Mul");
// Integer division truncates toward zero; an integer divisor of 0 is an error.
MINITF_REGISTER_BINARY_OP_("Div");
MINITF_REGISTER_BINARY_OP_("Maximum");
MINITF_REGISTER_BINARY_OP_("Minimum");
#undef MINITF_REGISTER_BINARY_OP_

// Unary ops: y = f(x), elementwise.
#define MINITF_REGISTER_UNARY_OP_(name, types) \
  REGISTER_OP(name).Input("x: T").Output("y: T").Attr(types).SetShapeFn(shape_fns::UnchangedShape)

MINITF_REGISTER_UNARY_OP_("Neg", kNumberTypes);
MINITF_REGISTER_UNARY_OP_("Square", kNumberTypes);
MINITF_REGISTER_UNARY_OP_("Sqrt", kFloatTypes);
MINITF_REGISTER_UNARY_OP_("Exp", kFloatTypes);
MINITF_REGISTER_UNARY_OP_("Log", kFloatTypes);
#undef MINITF_REGISTER_UNARY_OP_

// Floating to integer casts truncate toward zero; to bool is `x != 0`.
REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: {float, double, int32, int64, bool}")
    .Attr("DstT: {float, double, int32, int64, bool}")
    .SetShapeFn(shape_fns::UnchangedShape);

// The output shape of a reduction. With constant axes it is exact (and bad
// axes are rejected here); otherwise the rank is still known when keep_dims
// is set or the number of axes is.
absl::Status ReductionShape(InferenceContext* c) {
  bool keep_dims = false;
  MINITF_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  const PartialTensorShape& input = c->input(0);
  const PartialTensorShape& axes_shape = c->input(1);
  if (axes_shape.dims() > 1) {
    return c->Error(absl::StrCat("reduction_indices must be a scalar or a vector, got shape ",
                                 axes_shape.DebugString()));
  }
  // Reducing over no axes returns the input.
  if (axes_shape.dims() == 1 && axes_shape.dim_size(0) == 0) {
    c->set_output(0, input);
    return absl::OkStatus();
  }
  if (input.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = input.dims();
  const Tensor* axes = c->input_tensor(1);
  if (axes == nullptr) {
    // Every axis must name a distinct dimension, so n axes remove n of them.
    // -1: the number of axes is not known.
    int64_t num_axes = -1;
    if (axes_shape.dims() == 0) {
      num_axes = 1;
    } else if (axes_shape.dims() == 1) {
      num_axes = axes_shape.dim_size(0);
    }
    if (num_axes > rank) {
      return c->Error(absl::StrCat("cannot reduce ", num_axes, " distinct axes of an input of ",
                                   "shape ", input.DebugString()));
    }
    if (keep_dims) {
      c->set_output(0, PartialTensorShape::UnknownOfRank(rank));
    } else if (num_axes >= 0) {
      c->set_output(0, PartialTensorShape::UnknownOfRank(rank - static_cast<int>(num_axes)));
    } else {
      c->set_output(0, PartialTensorShape::Unknown());
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<bool>> reduced = ReducedDims(*axes, rank);
  if (!reduced.ok()) {
    return c->Error(
        absl::StrCat(reduced.status().message(), "; input shape ", input.DebugString()));
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!(*reduced)[d]) {
      dims.push_back(input.dim_size(d));
    } else if (keep_dims) {
      dims.push_back(1);
    }
  }
  c->set_output(0, PartialTensorShape(absl::Span<const int64_t>(dims)));
  return absl::OkStatus();
}

#define MINITF_REGISTER_REDUCTION_OP_(name) \
  REGISTER_OP(name)                         \
      .Input("input: T")                    \
      .Input("reduction_indices: Tidx")     \
      .Output("output: T")                  \
      .Attr("keep_dims: bool = false")      \
      .Attr(kNumberTypes)                   \
      .Attr("Tidx: {int32, int64} = int32") \
      .SetShapeFn(ReductionShape)

MINITF_REGISTER_REDUCTION_OP_("Sum");
// Integer means divide the sum by the count with truncation, as TensorFlow does.
MINITF_REGISTER_REDUCTION_OP_("Mean");
MINITF_REGISTER_REDUCTION_OP_("Max");
#undef MINITF_REGISTER_REDUCTION_OP_

}  // namespace
}  // namespace minitf
