// Op definitions: Switch and Merge, the two primitives of a `cond`.
//
// Switch forwards `data` to output_true or output_false depending on `pred`;
// the other output is dead, and deadness propagates to everything downstream
// of it until a Merge, which forwards whichever input is alive.
#include "platform/status_macros.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf {

REGISTER_OP("Switch")
    .Input("data: T")
    .Input("pred: bool")
    .Output("output_false: T")
    .Output("output_true: T")
    .Attr("T: type")
    .SetShapeFn([](InferenceContext* c) {
      PartialTensorShape pred;
      MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &pred));
      c->set_output(0, c->input(0));
      c->set_output(1, c->input(0));
      return absl::OkStatus();
    });

REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn([](InferenceContext* c) {
      // The output has the shape all inputs agree on; unknown where they differ.
      PartialTensorShape out = c->input(0);
      for (int i = 1; i < c->num_inputs(); ++i) {
        auto merged = out.MergeWith(c->input(i));
        out = merged.ok() ? *merged
                          : (out.dims() == c->input(i).dims() && out.dims() >= 0
                                 ? PartialTensorShape::UnknownOfRank(out.dims())
                                 : PartialTensorShape());
      }
      c->set_output(0, out);
      c->set_output(1, TensorShape());
      return absl::OkStatus();
    });

}  // namespace minitf
