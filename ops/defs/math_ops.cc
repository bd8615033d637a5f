// Op definitions: the elementwise binary ops (Add, AddV2, Sub, Mul, Div,
// RealDiv, FloorDiv, FloorMod, Pow, SquaredDifference, Maximum, Minimum, with
// NumPy broadcasting), the gradient helpers of unary ops (RsqrtGrad,
// SqrtGrad, ReciprocalGrad, SigmoidGrad, TanhGrad), the comparisons (Less,
// LessEqual, Greater, GreaterEqual, Equal, NotEqual) and logical ops
// (LogicalAnd, LogicalOr, LogicalNot), which give bools, the unary ops (Neg,
// Square, Sqrt, Rsqrt, Exp, Log, Abs, Sign, Reciprocal, Erf, Erfc), Cast, the
// reductions (Sum, Mean, Max, Min, Prod), AddN, BatchMatMul, BatchMatMulV2 and
// the remapper's _MklFusedBatchMatMulV2.
// Select, SelectV2 and ArgMax are in selection_ops.cc.
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/util/reduction_axes.h"
#include "platform/status_macros.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

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
// Add as TensorFlow 2.x writes it (the same arithmetic).
MINITF_REGISTER_BINARY_OP_("AddV2");
MINITF_REGISTER_BINARY_OP_("Sub");
MINITF_REGISTER_BINARY_OP_("Mul");
// Integer division truncates toward zero; an integer divisor of 0 is an error.
MINITF_REGISTER_BINARY_OP_("Div");
// Division rounding toward negative infinity (floor(x / y) for floats);
// FloorMod is the matching remainder, x - floor(x / y) * y, which has the
// sign of y. An integer divisor of 0 is an error for both.
MINITF_REGISTER_BINARY_OP_("FloorDiv");
MINITF_REGISTER_BINARY_OP_("FloorMod");
// x to the power y; for integers, a negative exponent is an error.
MINITF_REGISTER_BINARY_OP_("Pow");
// (x - y)^2.
MINITF_REGISTER_BINARY_OP_("SquaredDifference");
MINITF_REGISTER_BINARY_OP_("Maximum");
MINITF_REGISTER_BINARY_OP_("Minimum");
#undef MINITF_REGISTER_BINARY_OP_

// x / y for floating types only.
REGISTER_OP("RealDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kFloatTypes)
    .SetShapeFn(shape_fns::BroadcastBinaryOpShape);

// Two inputs of one shape; the output has the merged shape.
absl::Status MergeBothInputsShape(InferenceContext* c) {
  PartialTensorShape merged;
  MINITF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &merged));
  c->set_output(0, merged);
  return absl::OkStatus();
}

// The gradients of unary ops written in terms of their output: given y =
// f(x) and dy = dL/dy (of y's shape, no broadcasting), z = dL/dx.
//   RsqrtGrad: dy * -0.5 * y^3        SqrtGrad: dy * 0.5 / y
//   ReciprocalGrad: -dy * y^2         SigmoidGrad: dy * y * (1 - y)
//   TanhGrad: dy * (1 - y^2)
#define MINITF_REGISTER_UNARY_GRAD_OP_(name) \
  REGISTER_OP(name)                          \
      .Input("y: T")                         \
      .Input("dy: T")                        \
      .Output("z: T")                        \
      .Attr(kFloatTypes)                     \
      .SetShapeFn(MergeBothInputsShape)

MINITF_REGISTER_UNARY_GRAD_OP_("RsqrtGrad");
MINITF_REGISTER_UNARY_GRAD_OP_("SqrtGrad");
MINITF_REGISTER_UNARY_GRAD_OP_("ReciprocalGrad");
MINITF_REGISTER_UNARY_GRAD_OP_("SigmoidGrad");
MINITF_REGISTER_UNARY_GRAD_OP_("TanhGrad");
#undef MINITF_REGISTER_UNARY_GRAD_OP_

// Comparisons: z = x op y, elementwise after broadcasting x and y. A NaN
// compares false with everything, itself included, except under NotEqual.
#define MINITF_REGISTER_COMPARISON_OP_(name) \
  REGISTER_OP(name)                          \
      .Input("x: T")                         \
      .Input("y: T")                         \
      .Output("z: bool")                     \
      .Attr(kNumberTypes)                    \
      .SetShapeFn(shape_fns::BroadcastBinaryOpShape)

MINITF_REGISTER_COMPARISON_OP_("Less");
MINITF_REGISTER_COMPARISON_OP_("LessEqual");
MINITF_REGISTER_COMPARISON_OP_("Greater");
MINITF_REGISTER_COMPARISON_OP_("GreaterEqual");
#undef MINITF_REGISTER_COMPARISON_OP_

// The output shape of Equal and NotEqual. With incompatible_shape_error
// false, operands that cannot broadcast give a scalar instead of an error,
// so the broadcast shape is certain only when both operands' shapes are
// fully known.
absl::Status EqualityShape(InferenceContext* c) {
  bool incompatible_shape_error = true;
  MINITF_RETURN_IF_ERROR(c->GetAttr("incompatible_shape_error", &incompatible_shape_error));
  if (incompatible_shape_error) return shape_fns::BroadcastBinaryOpShape(c);
  PartialTensorShape out;
  if (!shape_fns::BroadcastShapes(c->input(0), c->input(1), &out).ok()) {
    c->set_output(0, PartialTensorShape(TensorShape()));
  } else if (c->input(0).IsFullyDefined() && c->input(1).IsFullyDefined()) {
    c->set_output(0, out);
  } else {
    c->set_output(0, PartialTensorShape::Unknown());
  }
  return absl::OkStatus();
}

// Equality: z = (x == y) or (x != y) elementwise after broadcasting. When x
// and y cannot broadcast, incompatible_shape_error true makes that an error;
// false makes z a scalar: false for Equal, true for NotEqual.
#define MINITF_REGISTER_EQUALITY_OP_(name)            \
  REGISTER_OP(name)                                   \
      .Input("x: T")                                  \
      .Input("y: T")                                  \
      .Output("z: bool")                              \
      .Attr("T: {float, double, int32, int64, bool}") \
      .Attr("incompatible_shape_error: bool = true")  \
      .SetShapeFn(EqualityShape)

MINITF_REGISTER_EQUALITY_OP_("Equal");
MINITF_REGISTER_EQUALITY_OP_("NotEqual");
#undef MINITF_REGISTER_EQUALITY_OP_

// Logical ops on bools; the binary ones broadcast x and y.
REGISTER_OP("LogicalAnd")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetShapeFn(shape_fns::BroadcastBinaryOpShape);
REGISTER_OP("LogicalOr")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetShapeFn(shape_fns::BroadcastBinaryOpShape);
REGISTER_OP("LogicalNot").Input("x: bool").Output("y: bool").SetShapeFn(shape_fns::UnchangedShape);

// Unary ops: y = f(x), elementwise.
#define MINITF_REGISTER_UNARY_OP_(name, types) \
  REGISTER_OP(name).Input("x: T").Output("y: T").Attr(types).SetShapeFn(shape_fns::UnchangedShape)

// The elementwise sum of N tensors of one shape (TensorFlow writes it to add
// up the gradients of a tensor used several times).
REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr(kNumberTypes)
    .SetShapeFn([](InferenceContext* c) {
      PartialTensorShape merged = c->input(0);
      for (int i = 1; i < c->num_inputs(); ++i) {
        absl::StatusOr<PartialTensorShape> m = merged.MergeWith(c->input(i));
        if (!m.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "AddN's inputs must have one shape: input 0 ", c->input(0).DebugString(),
              ", input ", i, " ", c->input(i).DebugString()));
        }
        merged = *std::move(m);
      }
      c->set_output(0, merged);
      return absl::OkStatus();
    });

MINITF_REGISTER_UNARY_OP_("Neg", kNumberTypes);
MINITF_REGISTER_UNARY_OP_("Square", kNumberTypes);
MINITF_REGISTER_UNARY_OP_("Sqrt", kFloatTypes);
MINITF_REGISTER_UNARY_OP_("Rsqrt", kFloatTypes);  // 1 / sqrt(x)
MINITF_REGISTER_UNARY_OP_("Exp", kFloatTypes);
MINITF_REGISTER_UNARY_OP_("Log", kFloatTypes);
MINITF_REGISTER_UNARY_OP_("Abs", kNumberTypes);
// -1, 0 or 1 by the sign of x; a NaN stays NaN.
MINITF_REGISTER_UNARY_OP_("Sign", kNumberTypes);
MINITF_REGISTER_UNARY_OP_("Reciprocal", kFloatTypes);  // 1 / x
MINITF_REGISTER_UNARY_OP_("Erf", kFloatTypes);
MINITF_REGISTER_UNARY_OP_("Erfc", kFloatTypes);  // 1 - erf(x), exact for large x
#undef MINITF_REGISTER_UNARY_OP_

// Floating to integer casts truncate toward zero; to bool is `x != 0`.
// Truncate (TensorFlow's: truncate rather than round the mantissa when
// narrowing to bfloat16 or half) changes no cast between minitf's types,
// so either value gives the same result.
REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: {float, double, int32, int64, bool}")
    .Attr("DstT: {float, double, int32, int64, bool}")
    .Attr("Truncate: bool = false")
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
MINITF_REGISTER_REDUCTION_OP_("Min");
MINITF_REGISTER_REDUCTION_OP_("Prod");
#undef MINITF_REGISTER_REDUCTION_OP_

// BatchMatMul: x [..., r_x, c_x] and y [..., r_y, c_y] of one rank >= 2 with
// equal batch dimensions; op(x) is [M, K] and op(y) is [K, N] (op taking
// the adjoint where adj_x / adj_y say), and the output is [..., M, N]. An
// operand of unknown rank takes the other's.
absl::Status BatchMatMulShape(InferenceContext* c) {
  PartialTensorShape x, y;
  MINITF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &x));
  MINITF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &y));
  bool adj_x = false, adj_y = false;
  MINITF_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  MINITF_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  if (x.unknown_rank() && y.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return absl::OkStatus();
  }
  if (x.unknown_rank()) x = PartialTensorShape::UnknownOfRank(y.dims());
  if (y.unknown_rank()) y = PartialTensorShape::UnknownOfRank(x.dims());
  // What errors say of the operands (only built for an error).
  auto operands = [&] {
    return absl::StrCat("In[0]: ", x.DebugString(), ", In[1]: ", y.DebugString(),
                        adj_x ? " (adj_x)" : "", adj_y ? " (adj_y)" : "");
  };
  if (x.dims() != y.dims()) {
    return c->Error(absl::StrCat("x and y must have the same rank (equal batch dimensions), ",
                                 operands()));
  }
  const int rank = x.dims();
  std::vector<int64_t> dims;
  for (int d = 0; d < rank - 2; ++d) {
    const int64_t a = x.dim_size(d), b = y.dim_size(d);
    if (a >= 0 && b >= 0 && a != b) {
      return c->Error(absl::StrCat("batch dimension ", d, " differs: ", operands()));
    }
    dims.push_back(a >= 0 ? a : b);
  }
  const int64_t x_inner = x.dim_size(adj_x ? rank - 2 : rank - 1);
  const int64_t y_inner = y.dim_size(adj_y ? rank - 1 : rank - 2);
  if (x_inner >= 0 && y_inner >= 0 && x_inner != y_inner) {
    return c->Error(absl::StrCat("Matrix size-incompatible: ", operands()));
  }
  dims.push_back(x.dim_size(adj_x ? rank - 1 : rank - 2));
  dims.push_back(y.dim_size(adj_y ? rank - 2 : rank - 1));
  c->set_output(0, PartialTensorShape(absl::Span<const int64_t>(dims)));
  return absl::OkStatus();
}

// output[..., :, :] = op(x[..., :, :]) * op(y[..., :, :]) for every batch
// index, op taking the adjoint (the transpose, for real types) of an operand
// whose adj_ attr is set. TensorFlow's v1 BatchMatMul: no broadcasting of the
// batch dimensions.
REGISTER_OP("BatchMatMul")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(kNumberTypes)
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .SetShapeFn(BatchMatMulShape);

// BatchMatMulV2: ranks >= 2, possibly different; the batch dimensions
// broadcast (NumPy-style, aligned at the end) and the output is
// [broadcast batch..., M, N].
absl::Status BatchMatMulV2Shape(InferenceContext* c) {
  PartialTensorShape x, y;
  MINITF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &x));
  MINITF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &y));
  bool adj_x = false, adj_y = false;
  MINITF_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  MINITF_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  if (x.unknown_rank() || y.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return absl::OkStatus();
  }
  const int xr = x.dims(), yr = y.dims();
  const int64_t x_inner = x.dim_size(adj_x ? xr - 2 : xr - 1);
  const int64_t y_inner = y.dim_size(adj_y ? yr - 1 : yr - 2);
  if (x_inner >= 0 && y_inner >= 0 && x_inner != y_inner) {
    return c->Error(absl::StrCat("Matrix size-incompatible: In[0]: ", x.DebugString(),
                                 ", In[1]: ", y.DebugString(), adj_x ? " (adj_x)" : "",
                                 adj_y ? " (adj_y)" : ""));
  }
  PartialTensorShape batch;
  const absl::Status s = shape_fns::BroadcastShapes(
      PartialTensorShape(x.dim_sizes().subspan(0, xr - 2)),
      PartialTensorShape(y.dim_sizes().subspan(0, yr - 2)), &batch);
  if (!s.ok()) {
    return c->Error(absl::StrCat("In[0] and In[1] must have compatible batch dimensions: ",
                                 s.message()));
  }
  std::vector<int64_t> dims(batch.dim_sizes().begin(), batch.dim_sizes().end());
  dims.push_back(x.dim_size(adj_x ? xr - 1 : xr - 2));
  dims.push_back(y.dim_size(adj_y ? yr - 2 : yr - 1));
  c->set_output(0, PartialTensorShape(absl::Span<const int64_t>(dims)));
  return absl::OkStatus();
}

// BatchMatMul with the batch dimensions broadcast: x [..., r_x, c_x] and
// y [..., r_y, c_y] of any ranks >= 2. grad_x and grad_y (newer
// TensorFlow: the node computes a gradient) are accepted and ignored.
REGISTER_OP("BatchMatMulV2")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(kNumberTypes)
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulV2Shape);

// The remapper's BatchMatMulV2 + Mul + AddV2 on the CPU, under the name
// TensorFlow's oneDNN build gives it: output = product * args[0] + args[1],
// the product BatchMatMulV2's, args[0] a tensor of one element, args[1]
// broadcast to the product's shape (an attention's scores scaled and
// masked). fused_ops is ["Mul", "Add"] with num_args 2, or ["Mul"] with
// num_args 1. Made by the optimizer (optimizer/batch_matmul_fusion.h).
REGISTER_OP("_MklFusedBatchMatMulV2")
    .Input("x: T")
    .Input("y: T")
    .Input("args: num_args * T")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("num_args: int >= 0")
    .Attr("fused_ops: list(string) = []")
    .SetShapeFn(BatchMatMulV2Shape);

}  // namespace
}  // namespace minitf
