// Op definitions for mutable state held by reference: Variable, VariableV2,
// Assign, AssignAdd, AssignSub, ScatterAdd and ApplyGradientDescent (the other optimizer
// updates are in training_ops.cc, resource variables in
// resource_variable_ops.cc).
//
// A Variable outputs a reference (Ref(dtype)) to a tensor that lives in its
// device's ResourceMgr, so its value persists across steps. The update ops
// take that reference, change the tensor under the reference's mutex, and
// output the same reference so later ops see the new value.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "platform/status_macros.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf {
namespace {

absl::Status VariableShape(InferenceContext* c) {
  PartialTensorShape shape;
  MINITF_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  c->set_output(0, shape);
  return absl::OkStatus();
}

// With validate_shape the value must fit the variable's shape; the output
// (the variable after the assignment) has the value's shape.
absl::Status AssignShape(InferenceContext* c) {
  bool validate_shape = true;
  MINITF_RETURN_IF_ERROR(c->GetAttr("validate_shape", &validate_shape));
  if (!validate_shape) {
    c->set_output(0, c->input(1));
    return absl::OkStatus();
  }
  if (!c->input(0).IsCompatibleWith(c->input(1))) {
    return c->Error(absl::StrCat("Assign requires shapes of both tensors to match: ref has shape ",
                                 c->input(0).DebugString(), ", value has shape ",
                                 c->input(1).DebugString()));
  }
  PartialTensorShape merged;
  MINITF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &merged));
  c->set_output(0, merged);
  return absl::OkStatus();
}

// Input `update_input` (the value added or subtracted) must have the
// variable's shape; the output is the variable.
absl::Status InPlaceUpdateShape(InferenceContext* c, int update_input) {
  PartialTensorShape merged;
  MINITF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(update_input), &merged));
  c->set_output(0, merged);
  return absl::OkStatus();
}

// ScatterAdd: ref must be at least a vector and updates must have the shape
// indices.shape + ref.shape[1:] (or be a scalar, added to every row named);
// the output is the variable.
absl::Status ScatterUpdateShape(InferenceContext* c) {
  const PartialTensorShape& ref = c->input(0);
  const PartialTensorShape& indices = c->input(1);
  const PartialTensorShape& updates = c->input(2);
  if (!ref.unknown_rank() && ref.dims() == 0) {
    return c->Error("params must be at least 1-D, got shape []");
  }
  if (ref.unknown_rank() || indices.unknown_rank() || updates.unknown_rank() ||
      updates.dims() == 0) {
    c->set_output(0, ref);
    return absl::OkStatus();
  }
  std::vector<int64_t> want(indices.dim_sizes().begin(), indices.dim_sizes().end());
  want.insert(want.end(), ref.dim_sizes().begin() + 1, ref.dim_sizes().end());
  if (!updates.IsCompatibleWith(PartialTensorShape(absl::Span<const int64_t>(want)))) {
    return c->Error(absl::StrCat(
        "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got "
        "updates.shape ",
        updates.DebugString(), ", indices.shape ", indices.DebugString(), ", params.shape ",
        ref.DebugString()));
  }
  c->set_output(0, ref);
  return absl::OkStatus();
}

}  // namespace

// A reference to the tensor of the `Var` resource named container/shared_name
// (the node's name when shared_name is empty), uninitialized until assigned.
REGISTER_OP("Variable")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(VariableShape);

// Variable under the name TensorFlow 1.x graphs (tf.compat.v1.Variable) use.
REGISTER_OP("VariableV2")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(VariableShape);

// ref = value. Outputs the reference.
REGISTER_OP("Assign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("validate_shape: bool = true")
    .Attr("use_locking: bool = true")
    .SetShapeFn(AssignShape);

// ref += value, in place. Outputs the reference.
REGISTER_OP("AssignAdd")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: {float, double, int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) { return InPlaceUpdateShape(c, 1); });

// ref -= value, in place. Outputs the reference.
REGISTER_OP("AssignSub")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: {float, double, int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) { return InPlaceUpdateShape(c, 1); });

// ref[indices[i], ...] += updates[i, ...], in place; a row named several
// times gets every update. Indices must be in [0, ref.shape[0]). Outputs
// the reference. (What Adam's sparse update of an embedding emits.)
REGISTER_OP("ScatterAdd")
    .Input("ref: Ref(T)")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: {float, double, int32, int64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ScatterUpdateShape);

// var -= alpha * delta, in place. Outputs the reference.
REGISTER_OP("ApplyGradientDescent")
    .Input("var: Ref(T)")
    .Input("alpha: T")
    .Input("delta: T")
    .Output("out: Ref(T)")
    .Attr("T: {float, double}")
    .Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      PartialTensorShape alpha;
      MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &alpha));
      return InPlaceUpdateShape(c, 2);
    });

}  // namespace minitf
