// Op definitions: Const, Placeholder, Identity, NoOp.
#include "absl/strings/str_cat.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"
#include "runtime/status_macros.h"

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

}  // namespace minitf
