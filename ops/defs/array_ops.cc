// Op definitions: Const, Placeholder, Identity, NoOp, the shape ops
// Reshape, Shape, Fill, ZerosLike, OnesLike, and Transpose.
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/util/transpose_perm.h"
#include "platform/status_macros.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf {

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn([](InferenceContext* c) {
      Tensor value;
      MINITF_RETURN_IF_ERROR(c->GetAttr("value", &value));
      DataType dtype;
      MINITF_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
      if (value.dtype() != dtype) {
        return c->Error(absl::StrCat("value has type ", DataTypeString(value.dtype()),
                                     " but dtype is ", DataTypeString(dtype)));
      }
      c->set_output(0, value.shape());
      return absl::OkStatus();
    });

REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = ?")
    .SetShapeFn([](InferenceContext* c) {
      PartialTensorShape shape;
      MINITF_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
      c->set_output(0, shape);
      return absl::OkStatus();
    });

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape);

REGISTER_OP("NoOp").SetShapeFn(shape_fns::UnknownShape);

namespace {

// Reshape: the requested shape with its one -1 resolved where the input's
// element count is known; a count that cannot match is an error.
absl::Status ReshapeShape(InferenceContext* c) {
  PartialTensorShape requested;
  MINITF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &requested));
  const Tensor* shape_value = c->input_tensor(1);
  if (requested.unknown_rank() || shape_value == nullptr) {
    c->set_output(0, requested);
    return absl::OkStatus();
  }
  // With the shape's value known, -1 entries are requests to infer.
  int infer_index = -1;
  int64_t known_product = 1;
  for (int d = 0; d < requested.dims(); ++d) {
    const int64_t size = requested.dim_size(d);
    if (size >= 0) {
      known_product = MultiplyWithoutOverflow(known_product, size);
      if (known_product < 0) {
        return c->Error(
            absl::StrCat("shape ", requested.DebugString(), " has more than 2^63-1 elements"));
      }
    } else if (infer_index >= 0) {
      return c->Error(absl::StrCat("can only infer one dimension of shape ",
                                   requested.DebugString()));
    } else {
      infer_index = d;
    }
  }
  const int64_t input_elements = c->input(0).num_elements();
  if (input_elements < 0) {
    c->set_output(0, requested);
    return absl::OkStatus();
  }
  std::vector<int64_t> dims(requested.dim_sizes().begin(), requested.dim_sizes().end());
  if (infer_index >= 0) {
    if (known_product == 0 ? input_elements != 0 : input_elements % known_product != 0) {
      return c->Error(absl::StrCat("cannot reshape a tensor of shape ",
                                   c->input(0).DebugString(), " (", input_elements,
                                   " elements) into shape ", requested.DebugString()));
    }
    dims[infer_index] = known_product == 0 ? 0 : input_elements / known_product;
  } else if (known_product != input_elements) {
    return c->Error(absl::StrCat("cannot reshape a tensor of shape ",
                                 c->input(0).DebugString(), " (", input_elements,
                                 " elements) into shape ", requested.DebugString(), " (",
                                 known_product, " elements)"));
  }
  c->set_output(0, PartialTensorShape(absl::Span<const int64_t>(dims)));
  return absl::OkStatus();
}

// Shape: a vector with one entry per dimension of the input.
absl::Status ShapeShape(InferenceContext* c) {
  c->set_output(0, PartialTensorShape({c->input(0).unknown_rank() ? -1 : c->input(0).dims()}));
  return absl::OkStatus();
}

// Fill: the shape `dims` holds; `value` must be a scalar.
absl::Status FillShape(InferenceContext* c) {
  PartialTensorShape dims, value;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &dims));
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &value));
  PartialTensorShape out;
  MINITF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

// Transpose: output dimension i is input dimension perm[i]. With perm's
// value known the shape is exact (and a bad perm is rejected here);
// otherwise only the rank is known, from x or from perm's length.
absl::Status TransposeShape(InferenceContext* c) {
  const PartialTensorShape& x = c->input(0);
  PartialTensorShape perm_shape;
  MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &perm_shape));
  const int64_t perm_size = perm_shape.dim_size(0);
  if (!x.unknown_rank() && perm_size >= 0 && perm_size != x.dims()) {
    return c->Error(absl::StrCat("perm has ", perm_size, " entries, but x has rank ", x.dims(),
                                 " (shape ", x.DebugString(), ")"));
  }
  const int64_t rank = x.unknown_rank() ? perm_size : x.dims();
  if (rank < 0) {
    c->set_output(0, PartialTensorShape::Unknown());
    return absl::OkStatus();
  }
  const Tensor* perm_value = c->input_tensor(1);
  if (perm_value == nullptr) {
    c->set_output(0, PartialTensorShape::UnknownOfRank(static_cast<int>(rank)));
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<int>> perm =
      TransposePermutation(*perm_value, static_cast<int>(rank));
  if (!perm.ok()) {
    return c->Error(absl::StrCat(perm.status().message(), "; x has shape ", x.DebugString()));
  }
  std::vector<int64_t> dims(rank, -1);
  if (!x.unknown_rank()) {
    for (int64_t i = 0; i < rank; ++i) dims[i] = x.dim_size((*perm)[i]);
  }
  c->set_output(0, PartialTensorShape(absl::Span<const int64_t>(dims)));
  return absl::OkStatus();
}

}  // namespace

// A tensor with the elements of `tensor` and the shape `shape` holds, which
// may contain one -1 (inferred from the element count). Shares the buffer.
REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = int32")
    .SetShapeFn(ReshapeShape);

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = int32")
    .SetShapeFn(ShapeShape);

// A tensor of shape `dims` whose every element is the scalar `value`.
REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index_type: {int32, int64} = int32")
    .SetShapeFn(FillShape);

REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double, int32, int64}")
    .SetShapeFn(shape_fns::UnchangedShape);

REGISTER_OP("OnesLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double, int32, int64}")
    .SetShapeFn(shape_fns::UnchangedShape);

// y = x with its dimensions reordered: y.shape[i] = x.shape[perm[i]] and
// y[i_0, ..., i_{n-1}] = x[j] where j[perm[k]] = i_k. perm must be a
// permutation of [0, rank(x)); the kernels take ranks up to 8.
REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = int32")
    .SetShapeFn(TransposeShape);

}  // namespace minitf
